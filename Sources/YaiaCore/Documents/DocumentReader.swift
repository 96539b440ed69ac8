import YaiaKit

// Reading a document into its compiled form: names, arguments, actions and their branches.

/// Reads a document into its compiled form, collecting every problem on
/// the way instead of stopping at the first.
struct DocumentReader: ProblemReader {
    var problems: [DocumentProblem] = []
    var renamed: [(read: String, written: String)] = []
    let catalog: Set<String>?
    /// The declared state fields, once `state` is read.
    var fields: [String] = []
    var actionNames: [String] = []
    var sceneName = ""

    static let documentMembers = ["yaia", "scene", "description", "args", "state", "actions", "view", "invariants", "children"]
    static let argumentMembers = ["type", "default", "description"]
    static let branchMembers = ["when", "set", "effects", "route", "cancel", "output", "child", "description"]
    static let actionMembers = ["payload", "branches", "description"]
    static let effectMembers = ["service", "op", "args", "then", "catch", "id", "policy", "timeout", "restore", "description"]
    static let routeKinds = ["push", "present", "replace", "pop", "dismiss", "popToRoot", "popTo"]
    static let routeMembers = routeKinds + ["args", "onResult", "result"]
    static let literalKey = "literal"

    static let initialRoots: Set<String> = ["args", "env"]
    static let actionRoots: Set<String> = ["state", "payload", "env"]
    static let viewRoots: Set<String> = ["state"]
    static let invariantRoots: Set<String> = ["state", "args", "env"]

    init(catalog: Set<String>?) { self.catalog = catalog }

    /// A non-empty string member.
    mutating func name(_ json: JSON, _ what: String, at pointer: String) -> String? {
        guard case .string(let s) = json else {
            problem(.wrongType, "\(what) must be a string, not \(json.kindName)", at: pointer)
            return nil
        }
        guard !s.isEmpty else {
            problem(.badValue, "\(what) must not be empty", at: pointer)
            return nil
        }
        return s
    }

    mutating func describe(_ o: JSONObject, at pointer: String) {
        if let d = o["description"], d.stringValue == nil {
            problem(.wrongType, "\"description\" must be a string, not \(d.kindName)", at: JSONPointer.appending(pointer, "description"))
        }
    }

    // MARK: document

    mutating func document(_ json: JSON) -> SceneDocument.Storage? {
        guard let given = object(json, "a scene document", at: "") else { return nil }
        defer { restorePointers() }
        let o = members(of: given, "a scene document", known: Self.documentMembers, required: ["scene", "state", "actions"], at: "")
        describe(o, at: "")
        switch o["yaia"] {
        case nil: problem(.badVersion, "a scene document needs \"yaia\", the format's version: 1", at: "")
        case let v? where v.int64Value.map(SceneDocument.versions.contains) ?? false: break
        case let v?:
            problem(.badVersion, "\"yaia\" must be a format version this runtime reads (\(SceneDocument.versions.map(String.init).joined(separator: ", "))), not \(v.isNumber ? v.description : v.kindName)", at: "/yaia")
        }
        var sceneName: String?
        if let s = o["scene"] { sceneName = name(s, "\"scene\"", at: "/scene") }
        self.sceneName = sceneName ?? ""

        let args = o["args"].flatMap { arguments($0) }
        var state: [(key: String, value: Template)] = []
        if let s = o["state"], let fields = object(s, "\"state\"", at: "/state") {
            self.fields = fields.keys
            for (key, value) in fields {
                state.append((key, template(value, at: JSONPointer.appending("/state", key), roots: Self.initialRoots)))
            }
        }
        var actions: [String: DocumentAction] = [:]
        if let a = o["actions"], let list = object(a, "\"actions\"", at: "/actions") {
            actionNames = list.keys
            for (key, value) in list {
                let at = JSONPointer.appending("/actions", key)
                if key.isEmpty { problem(.badValue, "an action type must not be empty", at: at) }
                if let action = action(value, at: at) { actions[key] = action }
            }
        }
        var view: [(key: String, value: Template)]?
        if let v = o["view"], let fields = object(v, "\"view\"", at: "/view") {
            view = fields.map { ($0.key, template($0.value, at: JSONPointer.appending("/view", $0.key), roots: Self.viewRoots)) }
        }
        var invariants: [(key: String, rule: LogicRule)] = []
        if let i = o["invariants"], let list = object(i, "\"invariants\"", at: "/invariants") {
            for (key, value) in list {
                let at = JSONPointer.appending("/invariants", key)
                if key.isEmpty { problem(.badValue, "an invariant's name must not be empty", at: at) }
                if let rule = condition(value, at: at, roots: Self.invariantRoots) { invariants.append((key, rule)) }
            }
        }
        let children = o["children"].map { self.children($0) } ?? []
        guard let sceneName, problems.isEmpty else { return nil }
        return SceneDocument.Storage(source: json, name: sceneName, args: args, templates: .init(state: state, view: view, children: children),
                                     actions: actions, invariants: invariants)
    }

    mutating func arguments(_ json: JSON) -> [(key: String, argument: DocumentArgument)]? {
        guard let o = object(json, "\"args\"", at: "/args") else { return nil }
        var list: [(key: String, argument: DocumentArgument)] = []
        for (key, value) in o {
            let at = JSONPointer.appending("/args", key)
            guard let given = object(value, "an argument's declaration", at: at) else { continue }
            let d = members(of: given, "an argument's declaration", known: Self.argumentMembers, at: at)
            describe(d, at: at)
            var type = d["default"].map(DeclaredType.of) ?? .any
            if let t = d["type"] { type = DeclaredType.read(t, at: JSONPointer.appending(at, "type"), problems: &problems) }
            if let value = d["default"], let m = type.mismatch(value) {
                problem(.badValue, "the default \(m.at.isEmpty ? "" : "at \(m.at) ")\(m.problem)", at: JSONPointer.appending(at, "default") + m.at)
            }
            list.append((key, DocumentArgument(type: type, default: d["default"], description: d["description"]?.stringValue)))
        }
        return list
    }

    // MARK: actions

    mutating func action(_ json: JSON, at pointer: String) -> DocumentAction? {
        switch json {
        case .array(let list):
            return DocumentAction(payload: nil, branches: branches(list.elements, at: pointer))
        // A misspelled "branches" is read as "branches", not as a branch's member.
        case .object(let given) where given.keys.contains { Suggestion.nearest($0, among: Self.actionMembers + Self.branchMembers) == "branches" }:
            let o = members(of: given, "an action with \"branches\"", known: Self.actionMembers, at: pointer)
            describe(o, at: pointer)
            let payload = o["payload"].map { DeclaredType.read($0, at: JSONPointer.appending(pointer, "payload"), problems: &problems) }
            let at = JSONPointer.appending(pointer, "branches")
            guard case .array(let list)? = o["branches"] else {
                problem(.wrongType, "\"branches\" must be a list of branches, not \(o["branches"]?.kindName ?? "")", at: at)
                return nil
            }
            return DocumentAction(payload: payload, branches: branches(list.elements, at: at))
        case .object(let given):
            let o = members(of: given, "a branch", known: Self.branchMembers + ["payload"], at: pointer)
            let payload = o["payload"].map { DeclaredType.read($0, at: JSONPointer.appending(pointer, "payload"), problems: &problems) }
            var rest = o
            rest["payload"] = nil
            return DocumentAction(payload: payload, branches: [branch(rest, at: pointer, checked: true)])
        default:
            problem(.wrongType, "an action is a branch (an object) or a list of branches, not \(json.kindName)", at: pointer)
            return nil
        }
    }

    mutating func branches(_ list: [JSON], at pointer: String) -> [DocumentBranch] {
        if list.isEmpty { problem(.badValue, "an action needs at least one branch", at: pointer) }
        var out: [DocumentBranch] = []
        var unguarded: Int?
        for (i, item) in list.enumerated() {
            let at = JSONPointer.appending(pointer, i)
            if let u = unguarded {
                problem(.unreachableBranch, "branch \(i) is never reached: branch \(u) has no \"when\", so it always applies", at: at)
            }
            guard let o = object(item, "a branch", at: at) else { continue }
            if o["payload"] != nil {
                problem(.unknownMember, "a branch in a list has no \"payload\": declare it on the action, as {\"payload\": ..., \"branches\": [...]}",
                        at: JSONPointer.appending(at, "payload"))
            }
            var rest = o
            rest["payload"] = nil
            if o["when"] == nil, unguarded == nil { unguarded = i }
            out.append(branch(rest, at: at))
        }
        return out
    }

    mutating func branch(_ given: JSONObject, at pointer: String, checked: Bool = false) -> DocumentBranch {
        let o = checked ? given : members(of: given, "a branch", known: Self.branchMembers, at: pointer)
        describe(o, at: pointer)
        var result = DocumentBranch(when: nil, assignments: [], cancel: nil, effects: [], route: nil)
        if let v = o["output"] { result.output = template(v, at: JSONPointer.appending(pointer, "output"), roots: Self.actionRoots) }
        if let v = o["child"] { result.child = template(v, at: JSONPointer.appending(pointer, "child"), roots: Self.actionRoots) }
        if let w = o["when"] { result.when = condition(w, at: JSONPointer.appending(pointer, "when")) }
        if let s = o["set"] {
            let at = JSONPointer.appending(pointer, "set")
            if let paths = object(s, "\"set\"", at: at) {
                for (key, value) in paths {
                    let p = JSONPointer.appending(at, key)
                    let v = template(value, at: p, roots: Self.actionRoots)
                    if let path = self.path(key, at: p) { result.assignments.append(DocumentAssignment(text: key, path: path, value: v)) }
                }
            }
        }
        if let c = o["cancel"] {
            let at = JSONPointer.appending(pointer, "cancel")
            let t = template(c, at: at, roots: Self.actionRoots)
            if let v = t.literal, DocumentReader.effectIDs(v) == nil {
                problem(.badValue, "\"cancel\" must be an effect id (a non-empty string) or a list of them", at: at)
            }
            result.cancel = t
        }
        if let e = o["effects"] {
            let at = JSONPointer.appending(pointer, "effects")
            if case .array(let list) = e {
                for (i, item) in list.enumerated() {
                    if let effect = effect(item, at: JSONPointer.appending(at, i)) { result.effects.append(effect) }
                }
            } else {
                problem(.wrongType, "\"effects\" must be a list of effects, not \(e.kindName)", at: at)
            }
        }
        if let r = o["route"] { result.route = route(r, at: JSONPointer.appending(pointer, "route")) }
        return result
    }

    /// The effect ids a `cancel` value names, or nil when it names none.
    static func effectIDs(_ value: JSON) -> [String]? {
        switch value {
        case .string(let s) where !s.isEmpty: return [s]
        case .array(let list):
            let ids = list.compactMap { $0.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
            return ids.count == list.count ? ids : nil
        default: return nil
        }
    }

    /// A `set` path: a declared field, then steps.
    mutating func path(_ text: String, at pointer: String) -> [String]? {
        let steps = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // Each step is a level of the state, which nests no deeper than the depth limit allows.
        guard !steps.contains(where: \.isEmpty), steps.count <= JSONParser.defaultMaxDepth else {
            problem(.badPath, steps.count > JSONParser.defaultMaxDepth ? "the path has \(steps.count) steps; a state nests at most \(JSONParser.defaultMaxDepth) levels"
                    : "\"\(text)\" has an empty step: a path is FIELD or FIELD.STEP.STEP...", at: pointer)
            return nil
        }
        guard fields.contains(steps[0]) else {
            problem(.unknownField, "\"\(steps[0])\" is not a field of the state" + Suggestion.hint(steps[0], among: fields), at: pointer)
            return nil
        }
        return steps
    }
}
