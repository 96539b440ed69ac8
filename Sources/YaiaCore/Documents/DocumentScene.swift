import YaiaKit

/// A scene type made of a scene document: opens and restores live scenes
/// (`DocumentSceneValue`) that a runtime hosts like Swift scenes.
public struct DocumentScene: Sendable {
    public let document: SceneDocument
    /// Evaluation steps one reduction may take (and, apart, one view model),
    /// before the share of the data it reads (LogicBudget): the runtime's
    /// "logic_steps" limit.
    public let budget: Int
    /// Steps per unit of the data its expressions read, once `budget` is
    /// spent (LogicBudget.perUnit).
    public var stepsPerUnit = LogicBudget.defaultPerUnit
    /// How many levels a state, and an effect's or a route's arguments and
    /// result, may nest (a runtime's "depth" limit). What would nest deeper
    /// is refused with `limit_exceeded` (limit "depth"), the state
    /// unchanged, so every state a snapshot holds can be restored.
    public var maxDepth = JSONParser.defaultMaxDepth
    /// What each view member reads, so that one whose inputs are unchanged is kept.
    let viewInputs: DocumentViewInputs
    /// What the child slots read, so that children whose inputs are unchanged are kept.
    let childInputs: [String]?

    public init(_ document: SceneDocument, budget: Int = LogicRule.defaultBudget) {
        self.document = document
        self.budget = budget
        viewInputs = DocumentViewInputs(document.storage.view)
        // What `key` and `args` read of an item follows from `from`.
        childInputs = Template.stateFields(of: document.storage.children.flatMap(\.templates), besides: "item")
    }

    /// Reads and checks a document (`bad_document` with all its problems).
    public init(_ json: JSON, catalog: Set<String>? = nil, budget: Int = LogicRule.defaultBudget) throws(YaiaError) {
        self.init(try SceneDocument(json, catalog: catalog), budget: budget)
    }

    public var name: String { document.name }

    /// A fresh budget for one reduction, one opening or one view model.
    var steps: LogicBudget { LogicBudget(base: budget, perUnit: stepsPerUnit) }

    /// A new scene from open arguments (`bad_args` for ones it cannot use);
    /// `env` is what the host passes in (`{"now": SECONDS}`).
    public func open(args: JSON = [:], env: JSON = [:]) throws(YaiaError) -> DocumentSceneValue {
        let args = try checkedArgs(args)
        let data: JSON = ["args": .object(args), "env": env]
        var steps = self.steps
        var state = JSONObject(minimumCapacity: document.storage.state.count)
        for (key, template) in document.storage.state {
            state[key] = try template.evaluate(data, &steps)
        }
        guard JSON.object(state).nests(within: maxDepth) else {
            throw YaiaError.limit("depth", maxDepth, "\(name): the state as opened nests more than \(maxDepth) levels")
        }
        return try DocumentSceneValue(scene: self, state: state, env: env)
    }

    /// A scene from its state's JSON form (a snapshot): an object with every
    /// declared field and no other, or `bad_state`.
    public func restore(state json: JSON, env: JSON = [:]) throws(YaiaError) -> DocumentSceneValue {
        guard case .object(let state) = json else {
            throw YaiaError(.badState, "the state of \(name) is an object, not \(json.kindName)")
        }
        let fields = document.storage.state.map(\.key)
        for key in fields where state[key] == nil {
            throw YaiaError(.badState, "the state of \(name) needs its field \"\(key)\"", at: JSONPointer.appending("", key))
        }
        for key in state.keys where !fields.contains(key) {
            throw YaiaError(.badState, "\"\(key)\" is not a field of the state of \(name)" + Suggestion.hint(key, among: fields),
                            at: JSONPointer.appending("", key))
        }
        // No deeper than a reduction may make it: what restores could not have been reached.
        guard json.nests(within: maxDepth) else {
            throw YaiaError(.badState, "the state of \(name) nests more than \(maxDepth) levels (the \"depth\" limit)")
        }
        return try DocumentSceneValue(scene: self, state: state, env: env)
    }

    /// The arguments with defaults filled in.
    func checkedArgs(_ args: JSON) throws(YaiaError) -> JSONObject {
        guard case .object(var given) = args else {
            throw YaiaError(.badArgs, "\(name) takes an object of arguments, not \(args.kindName)")
        }
        let declared = document.storage.args ?? []
        for key in given.keys where !declared.contains(where: { $0.key == key }) {
            let what = declared.isEmpty ? "\(name) takes no arguments" : "\(name) has no argument \"\(key)\""
            throw YaiaError(.badArgs, what + Suggestion.hint(key, among: declared.map(\.key)), at: JSONPointer.appending("", key))
        }
        for (key, argument) in declared {
            let at = JSONPointer.appending("", key)
            guard let value = given[key] else {
                if let value = argument.default { given[key] = value }
                else if argument.type.acceptsNull { given[key] = .null }
                else { throw YaiaError(.badArgs, "\(name) needs the argument \"\(key)\"", at: at) }
                continue
            }
            if let m = argument.type.mismatch(value) {
                throw YaiaError(.badArgs, "the argument \"\(key)\"\(m.at.isEmpty ? "" : " at \(m.at)") \(m.problem)", at: at + m.at)
            }
        }
        return given
    }
}

/// A live scene of a document: its state, the host's `env`, and the view
/// model of the state (computed after each change, so that reading it
/// cannot fail).
public struct DocumentSceneValue: LiveScene, Equatable {
    public let scene: DocumentScene
    public private(set) var state: JSONObject
    /// What expressions read as `env`; the host sets it (`{"now": SECONDS}`).
    public var env: JSON
    public private(set) var viewModel: JSON
    /// What `children()` answers: evaluated with the view model, whose
    /// inputs it follows the same way.
    private(set) var wanted: Result<[Child], YaiaError>

    init(scene: DocumentScene, state: JSONObject, env: JSON) throws(YaiaError) {
        self.scene = scene
        self.state = state
        self.env = env
        self.viewModel = try DocumentSceneValue.view(of: state, scene: scene)
        self.wanted = DocumentSceneValue.children(of: state, scene: scene)
    }

    public var name: String { scene.name }
    public var json: JSON { .object(state) }

    /// Same scene type, state and env (which the next reduction reads).
    public static func == (a: DocumentSceneValue, b: DocumentSceneValue) -> Bool {
        a.scene.name == b.scene.name && a.state == b.state && a.env == b.env
    }

    /// The action's definition, its payload checked.
    func definition(_ action: Action) throws(YaiaError) -> DocumentAction {
        guard let definition = scene.document.storage.actions[action.type] else {
            throw YaiaError(.unknownAction, "unknown action type \"\(action.type)\""
                            + Suggestion.hint(action.type, among: scene.document.storage.actions.keys), at: "/type")
        }
        if let declared = definition.payload, let m = declared.mismatch(action.payload ?? .null) {
            let subject = m.at.isEmpty ? "\(action.type)'s payload" : "\(action.type)'s payload at \(m.at)"
            let problem = action.payload == nil && m.at.isEmpty ? "is missing: it must be \(declared.expected)" : m.problem
            throw YaiaError(.badPayload, "\(subject) \(problem)", at: "/payload" + m.at)
        }
        return definition
    }

    /// Whether `reduce` would take `action`: its payload checked, and, since
    /// a document's reduction may still fail (its budget, a `set` path),
    /// the reduction run on a copy. A host's outcome refused here leaves its
    /// effect pending.
    public func check(_ action: Action) throws(YaiaError) {
        var copy = self
        _ = try copy.reduce(action, env: env)
    }

    public mutating func reduce(_ action: Action) throws(YaiaError) -> [Command] {
        try reduce(action, env: env)
    }

    /// A runtime's reduction: `env` is the host's values now.
    public mutating func reduce(_ sent: SentAction, env: () -> JSON) throws(YaiaError) -> [Command] {
        let action = try sent.action()
        let values = env()
        self.env = values
        return try reduce(action, env: values)
    }

    /// Reduces `action` with `env` as what expressions read as `env`; on
    /// error the state is unchanged.
    public mutating func reduce(_ action: Action, env: JSON) throws(YaiaError) -> [Command] {
        let definition = try definition(action)
        let data: JSON = ["state": .object(state), "payload": action.payload ?? .null, "env": env]
        var steps = scene.steps
        for branch in definition.branches {
            if let when = branch.when, try when.evaluate(data, budget: &steps) != .bool(true) { continue }
            var next = JSON.object(state)
            for assignment in branch.assignments {
                let value = try assignment.value.evaluate(data, &steps)
                // The state nests one level per step of the path, then as the
                // value does (measured as its size was); checked before the
                // path is walked.
                let depth = assignment.path.count + steps.resultDepth
                guard depth <= scene.maxDepth else {
                    throw YaiaError.limit("depth", scene.maxDepth, "\(name): set \"\(assignment.text)\" would nest the state more than \(scene.maxDepth) levels")
                }
                try DocumentSceneValue.assign(value, at: assignment.path[...], in: &next, text: assignment.text)
            }
            var commands: [Command] = []
            if let cancel = branch.cancel {
                for key in try keys(cancel, data, &steps) { commands.append(.cancel(key)) }
            }
            for effect in branch.effects { commands.append(.effect(try self.effect(effect, data, &steps))) }
            if let route = branch.route { commands.append(.route(try self.route(route, data, &steps))) }
            if let output = branch.output {
                commands.append(.output(try Action(json: try bounded(try output.evaluate(data, &steps), "the output"))))
            }
            if let child = branch.child {
                commands.append(.child(try ChildMessage(json: try bounded(try child.evaluate(data, &steps), "the child's action"))))
            }
            if case .object(let changed) = next, !DocumentSceneValue.same(changed, state) {
                viewModel = try DocumentSceneValue.view(of: changed, scene: scene, after: state, last: viewModel)
                wanted = DocumentSceneValue.children(of: changed, scene: scene, after: state, last: wanted)
                state = changed
            }
            return commands
        }
        return []
    }

    // MARK: parts of a reduction

    /// `value`, if it nests no deeper than the state may.
    func bounded(_ value: JSON, _ what: String) throws(YaiaError) -> JSON {
        guard value.nests(within: scene.maxDepth) else {
            throw YaiaError.limit("depth", scene.maxDepth, "\(name): \(what) nest more than \(scene.maxDepth) levels")
        }
        return value
    }

    /// Whether two states are equal, as JSON compares them; what they share
    /// (the parts a reduction left alone) is equal at once.
    static func same(_ a: JSONObject, _ b: JSONObject) -> Bool {
        guard a.count == b.count else { return false }
        if a.sharesStorage(with: b) { return true }
        for (m, n) in zip(a.members, b.members) {
            guard compareKeys(m.key, n.key) == 0, same(m.value, n.value) else { return false }
        }
        return true
    }

    static func same(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case (.array(let x), .array(let y)):
            return x.sameElements(as: y, by: same)
        case (.object(let x), .object(let y)):
            return same(x, y)
        default:
            return a == b
        }
    }

    static func view(of state: JSONObject, scene: DocumentScene) throws(YaiaError) -> JSON {
        guard let view = scene.document.storage.view else { return .object(state) }
        let data: JSON = ["state": .object(state)]
        var steps = scene.steps
        var model = JSONObject(minimumCapacity: view.count)
        for (key, template) in view { model[key] = try template.evaluate(data, &steps) }
        return .object(model)
    }

    func keys(_ template: Template, _ data: JSON, _ steps: inout LogicBudget) throws(YaiaError) -> [String] {
        let value = try template.evaluate(data, &steps)
        guard let ids = DocumentReader.effectIDs(value) else {
            throw YaiaError(.documentFailed, "\(name): \"cancel\" gave \(value.kindName), not an effect id or a list of them")
        }
        return ids
    }

    func effect(_ e: DocumentEffect, _ data: JSON, _ steps: inout LogicBudget) throws(YaiaError) -> Effect {
        var id: String?
        if let template = e.id {
            let value = try template.evaluate(data, &steps)
            guard case .string(let s) = value, !s.isEmpty else {
                throw YaiaError(.documentFailed, "\(name): the effect at \(e.at) has an \"id\" of \(value.kindName), not a non-empty string")
            }
            id = s
        }
        let args = try bounded(try e.args.evaluate(data, &steps), "the arguments of the effect at \(e.at)")
        return Effect(service: e.service, op: e.op, args: args, then: e.then, catch: e.catch,
                      options: .init(id: id, timeout: e.timeout, policy: e.policy, restore: e.restore))
    }

    func route(_ r: DocumentRoute, _ data: JSON, _ steps: inout LogicBudget) throws(YaiaError) -> Route {
        func value(_ t: Template?) throws(YaiaError) -> JSON? {
            guard let t else { return nil }
            return try bounded(try t.evaluate(data, &steps), "the route's arguments or result")
        }
        switch r {
        case .push(let scene, let args, let onResult): return .push(scene, args: try value(args), onResult: onResult)
        case .present(let scene, let args, let onResult): return .present(scene, args: try value(args), onResult: onResult)
        case .replace(let scene, let args): return .replace(scene, args: try value(args))
        case .pop(let result): return .pop(result: try value(result))
        case .dismiss(let result): return .dismiss(result: try value(result))
        case .popToRoot: return .popToRoot
        case .popTo(let scene): return .popTo(scene)
        }
    }

    /// Sets `value` at `path` inside `target`, creating missing object members.
    static func assign(_ value: JSON, at path: ArraySlice<String>, in target: inout JSON, text: String) throws(YaiaError) {
        guard let step = path.first else {
            target = value
            return
        }
        let rest = path.dropFirst()
        switch target {
        case .object(var o):
            target = .null  // so that `o` is the only reference and changes in place
            defer { target = .object(o) }
            try o.update(step, absent: rest.isEmpty ? .null : .object(JSONObject())) { (child) throws(YaiaError) in
                try assign(value, at: rest, in: &child, text: text)
            }
        case .array(var a):
            guard let i = Int(step), a.indices.contains(i) else {
                throw YaiaError(.documentFailed, "set \"\(text)\": \"\(step)\" is no index of an array of \(a.count)")
            }
            target = .null
            defer { target = .array(a) }
            try assign(value, at: rest, in: &a[i], text: text)
        default:
            throw YaiaError(.documentFailed, "set \"\(text)\": \"\(step)\" cannot be reached through \(target.kindName)")
        }
    }
}

extension Template {
    func evaluate(_ data: JSON, _ steps: inout LogicBudget) throws(YaiaError) -> JSON {
        // Leaves in `steps.resultDepth` how deeply the value nests.
        switch self {
        case .literal(let value):
            steps.resultDepth = value.depth(upTo: .max)
            return value
        case .rule(let rule, _): return try rule.evaluate(data, budget: &steps)
        case .object(let members):
            var o = JSONObject(minimumCapacity: members.count)
            var deepest = 0
            for (key, t) in members {
                o[key] = try t.evaluate(data, &steps)
                deepest = Swift.max(deepest, steps.resultDepth)
            }
            steps.resultDepth = deepest + 1
            return .object(o)
        case .array(let items):
            var a: [JSON] = []
            a.reserveCapacity(items.count)
            var deepest = 0
            for t in items {
                a.append(try t.evaluate(data, &steps))
                deepest = Swift.max(deepest, steps.resultDepth)
            }
            steps.resultDepth = deepest + 1
            return .array(a)
        }
    }
}

extension DeclaredType {
    /// What a value must be, for a missing one: the values an enum lists,
    /// else the types.
    var expected: String {
        if let enumeration { return "one of " + enumeration.map(\.description).joined(separator: ", ") }
        return kinds.map(DeclaredType.describe) ?? "any value"
    }
}
