/// One thing wrong with a scene document: a stable code, a message for
/// people and where it lies in the document (a JSON Pointer).
public struct DocumentProblem: Sendable, Equatable, CustomStringConvertible {
    /// A problem's stable code (docs/scene-documents.md lists them).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let badVersion = Code(rawValue: "bad_version")
        public static let missingMember = Code(rawValue: "missing_member")
        public static let unknownMember = Code(rawValue: "unknown_member")
        public static let wrongType = Code(rawValue: "wrong_type")
        public static let badValue = Code(rawValue: "bad_value")
        public static let unknownAction = Code(rawValue: "unknown_action")
        public static let unknownScene = Code(rawValue: "unknown_scene")
        public static let unknownField = Code(rawValue: "unknown_field")
        public static let badPath = Code(rawValue: "bad_path")
        public static let badDeclaration = Code(rawValue: "bad_declaration")
        public static let unreachableBranch = Code(rawValue: "unreachable_branch")
    }

    public var code: Code
    public var message: String
    public var at: String

    public init(_ code: Code, _ message: String, at: String) {
        self.code = code
        self.message = message
        self.at = at
    }

    /// `{"code", "message", "at"}`.
    public var json: JSON { ["code": .string(code.rawValue), "message": .string(message), "at": .string(at)] }

    public var description: String { "\(code): \(message) (at \(at))" }
}

/// A scene written as JSON data (docs/scene-documents.md), read and checked:
/// every expression parsed, every name resolved. Build one with `init`,
/// which refuses a document with problems; `check` lists them all.
public struct SceneDocument: Sendable {
    /// The format versions this runtime reads.
    public static let versions: [Int64] = [1]

    let storage: Storage

    /// The scene type's name.
    public var name: String { storage.name }
    /// The document as it was given.
    public var json: JSON { storage.source }

    /// Every problem of `json` as a scene document, in document order. With
    /// `catalog` (the names of the scene types there are), a route to any
    /// other scene (but this one) is a problem too.
    public static func check(_ json: JSON, catalog: Set<String>? = nil) -> [DocumentProblem] {
        var reader = DocumentReader(catalog: catalog)
        _ = reader.document(json)
        return reader.problems
    }

    /// Reads a document; one with problems is refused with `bad_document`,
    /// whose `problems` lists them all.
    public init(_ json: JSON, catalog: Set<String>? = nil) throws(YaiaError) {
        var reader = DocumentReader(catalog: catalog)
        let storage = reader.document(json)
        guard let storage, reader.problems.isEmpty else {
            throw SceneDocument.error(reader.problems, name: json["scene"]?.stringValue)
        }
        self.storage = storage
    }

    static func error(_ problems: [DocumentProblem], name: String?) -> YaiaError {
        let subject = name.map { "scene document \"\($0)\"" } ?? "the scene document"
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        let first = problems.first.map { $0.message } ?? ""
        var error = YaiaError(.badDocument, "\(subject) has \(count); the first: \(first)", at: problems.first?.at)
        error.problems = .array(problems.map(\.json))
        return error
    }
}

// MARK: - The compiled form

/// A value template: literals, expressions, and objects and arrays of them.
indirect enum Template: Sendable {
    case literal(JSON)
    /// The rule, and its JSON (which schema derivation reads).
    case rule(LogicRule, JSON)
    case object([(key: String, value: Template)])
    case array([Template])

    var literal: JSON? {
        if case .literal(let v) = self { return v }
        return nil
    }
}

struct DocumentEffect: Sendable {
    var service: String
    var op: String
    var args: Template
    var then: String?
    var `catch`: String?
    var id: Template?
    var timeout: Double?
    var policy: Effect.Policy
    var restore: Effect.RestorePolicy
    var at: String
}

enum DocumentRoute: Sendable {
    case push(String, args: Template?, onResult: String?)
    case present(String, args: Template?, onResult: String?)
    case replace(String, args: Template?)
    case pop(result: Template?)
    case dismiss(result: Template?)
    case popToRoot
    case popTo(String)
}

struct DocumentAssignment: Sendable {
    /// The path's text, as written.
    var text: String
    var path: [String]
    var value: Template
}

struct DocumentBranch: Sendable {
    var when: LogicRule?
    /// In the byte order of their paths.
    var assignments: [DocumentAssignment]
    var cancel: Template?
    var effects: [DocumentEffect]
    var route: DocumentRoute?
}

struct DocumentAction: Sendable {
    var payload: DeclaredType?
    var branches: [DocumentBranch]
}

struct DocumentArgument: Sendable {
    var type: DeclaredType
    var `default`: JSON?
    var description: String?
}

extension SceneDocument {
    final class Storage: Sendable {
        let source: JSON
        let name: String
        /// Nil: the scene takes no arguments.
        let args: [(key: String, argument: DocumentArgument)]?
        let state: [(key: String, value: Template)]
        let actions: [String: DocumentAction]
        /// Nil: the view model is the state.
        let view: [(key: String, value: Template)]?
        /// Named truth conditions over `state`, `args` and `env`, by name.
        let invariants: [(key: String, rule: LogicRule)]

        init(source: JSON, name: String, args: [(key: String, argument: DocumentArgument)]?,
             state: [(key: String, value: Template)], actions: [String: DocumentAction],
             view: [(key: String, value: Template)]?, invariants: [(key: String, rule: LogicRule)]) {
            self.source = source
            self.name = name
            self.args = args
            self.state = state
            self.actions = actions
            self.view = view
            self.invariants = invariants
        }
    }
}

// MARK: - Reading

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

    static let documentMembers = ["yaia", "scene", "description", "args", "state", "actions", "view", "invariants"]
    static let argumentMembers = ["type", "default", "description"]
    static let branchMembers = ["when", "set", "effects", "route", "cancel", "description"]
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
        guard let sceneName, problems.isEmpty else { return nil }
        return SceneDocument.Storage(source: json, name: sceneName, args: args, state: state, actions: actions, view: view,
                                     invariants: invariants)
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
            return DocumentAction(payload: nil, branches: branches(list, at: pointer))
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
            return DocumentAction(payload: payload, branches: branches(list, at: at))
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

    // MARK: commands

    mutating func actionName(_ json: JSON, _ what: String, at pointer: String) -> String? {
        guard let n = name(json, what, at: pointer) else { return nil }
        if !actionNames.contains(n) {
            problem(.unknownAction, "\"\(n)\" is not an action of this document" + Suggestion.hint(n, among: actionNames), at: pointer)
        }
        return n
    }

    mutating func effect(_ json: JSON, at pointer: String) -> DocumentEffect? {
        guard let given = object(json, "an effect", at: pointer) else { return nil }
        let o = members(of: given, "an effect", known: Self.effectMembers, required: ["service", "op"], at: pointer)
        describe(o, at: pointer)
        func at(_ key: String) -> String { JSONPointer.appending(pointer, key) }
        let service = o["service"].flatMap { name($0, "\"service\"", at: at("service")) }
        let op = o["op"].flatMap { name($0, "\"op\"", at: at("op")) }
        let args = o["args"].map { template($0, at: at("args"), roots: Self.actionRoots) } ?? .literal(.null)
        let then = o["then"].flatMap { actionName($0, "\"then\"", at: at("then")) }
        let `catch` = o["catch"].flatMap { actionName($0, "\"catch\"", at: at("catch")) }
        let id = o["id"].map { template($0, at: at("id"), roots: Self.actionRoots) }
        if case .literal(let v)? = id, v.stringValue?.isEmpty ?? true {
            problem(.badValue, "\"id\" must be a non-empty string (or an expression that gives one)", at: at("id"))
        }
        var timeout: Double?
        if let t = o["timeout"] {
            if let seconds = t.doubleValue, seconds > 0 { timeout = seconds }
            else { problem(t.isNumber ? .badValue : .wrongType, "\"timeout\" must be a positive number of seconds", at: at("timeout")) }
        }
        let policy = choice(o["policy"], "policy", Effect.Policy.self, at: at("policy")) ?? .concurrent
        let restore = choice(o["restore"], "restore", Effect.RestorePolicy.self, at: at("restore")) ?? .cancel
        guard let service, let op else { return nil }
        return DocumentEffect(service: service, op: op, args: args, then: then, catch: `catch`, id: id, timeout: timeout,
                              policy: policy, restore: restore, at: pointer)
    }

    mutating func choice<E: RawRepresentable & CaseIterable>(_ json: JSON?, _ key: String, _: E.Type, at pointer: String) -> E? where E.RawValue == String {
        guard let json else { return nil }
        let names = E.allCases.map(\.rawValue)
        guard case .string(let s) = json else {
            problem(.wrongType, "\"\(key)\" must be one of \(names.joined(separator: ", ")), not \(json.kindName)", at: pointer)
            return nil
        }
        guard let value = E(rawValue: s) else {
            problem(.badValue, "\"\(key)\" must be one of \(names.joined(separator: ", "))" + Suggestion.hint(s, among: names), at: pointer)
            return nil
        }
        return value
    }

    mutating func route(_ json: JSON, at pointer: String) -> DocumentRoute? {
        guard var o = object(json, "a route", at: pointer) else { return nil }
        func at(_ key: String) -> String { JSONPointer.appending(pointer, key) }
        // No kind: a misspelled one is read as the kind it misspells.
        let checked = !Self.routeKinds.contains { o[$0] != nil }
        if checked { o = members(of: o, "a route", known: Self.routeMembers, at: pointer) }
        let kinds = Self.routeKinds.filter { o[$0] != nil }
        guard kinds.count == 1, let kind = kinds.first else {
            if !checked { members(of: o, "a route", known: Self.routeMembers, at: pointer) }
            problem(.badValue, kinds.isEmpty ? "a route needs one of \(Self.routeKinds.joined(separator: ", "))"
                                             : "a route has one kind, not \(kinds.joined(separator: " and "))", at: pointer)
            return nil
        }
        let allowed: [String]
        switch kind {
        case "push", "present": allowed = ["args", "onResult"]
        case "replace": allowed = ["args"]
        case "pop", "dismiss": allowed = ["result"]
        default: allowed = []
        }
        if !checked { members(of: o, "a \"\(kind)\" route", known: [kind] + allowed, at: pointer) }
        let args = o["args"].map { template($0, at: at("args"), roots: Self.actionRoots) }
        let result = o["result"].map { template($0, at: at("result"), roots: Self.actionRoots) }
        let onResult = o["onResult"].flatMap { actionName($0, "\"onResult\"", at: at("onResult")) }
        switch kind {
        case "pop", "dismiss", "popToRoot":
            if o[kind] != .bool(true) { problem(.badValue, "\"\(kind)\" must be true", at: at(kind)) }
            return kind == "pop" ? .pop(result: result) : kind == "dismiss" ? .dismiss(result: result) : .popToRoot
        default:
            guard let scene = o[kind].flatMap({ name($0, "\"\(kind)\"", at: at(kind)) }) else { return nil }
            if let catalog, scene != sceneName, !catalog.contains(scene) {
                problem(.unknownScene, "no scene type is named \"\(scene)\"" + Suggestion.hint(scene, among: catalog), at: at(kind))
            }
            switch kind {
            case "push": return .push(scene, args: args, onResult: onResult)
            case "present": return .present(scene, args: args, onResult: onResult)
            case "replace": return .replace(scene, args: args)
            default: return .popTo(scene)
            }
        }
    }

    // MARK: expressions

    /// A `when` or an invariant: always JSON Logic, read as a truth value.
    mutating func condition(_ json: JSON, at pointer: String, roots: Set<String> = actionRoots) -> LogicRule? {
        guard rule(json, at: pointer, roots: roots) != nil else { return nil }
        return try? LogicRule(["!!": [json]], roots: roots)
    }

    /// A value template (docs/scene-documents.md, "Values and expressions").
    mutating func template(_ json: JSON, at pointer: String, roots: Set<String>) -> Template {
        switch json {
        case .object(let o) where o.count == 1:
            let m = o.members[0]
            if m.key == Self.literalKey { return .literal(m.value) }
            if logicOperators[m.key] != nil {
                return rule(json, at: pointer, roots: roots).map { .rule($0, json) } ?? .literal(.null)
            }
            return objectTemplate(o, at: pointer, roots: roots)
        case .object(let o):
            return objectTemplate(o, at: pointer, roots: roots)
        case .array(let list):
            var items: [Template] = []
            var literal = true
            for (i, item) in list.enumerated() {
                let t = template(item, at: JSONPointer.appending(pointer, i), roots: roots)
                if t.literal == nil { literal = false }
                items.append(t)
            }
            return literal ? .literal(.array(items.compactMap(\.literal))) : .array(items)
        default:
            return .literal(json)
        }
    }

    private mutating func objectTemplate(_ o: JSONObject, at pointer: String, roots: Set<String>) -> Template {
        var members: [(key: String, value: Template)] = []
        var literal = true
        for (key, value) in o {
            let t = template(value, at: JSONPointer.appending(pointer, key), roots: roots)
            if t.literal == nil { literal = false }
            members.append((key, t))
        }
        if literal { return .literal(.object(JSONObject(members.compactMap { m in m.value.literal.map { (m.key, $0) } }))) }
        return .object(members)
    }

    /// A JSON Logic expression, with its problems reported and its reads of
    /// `state.FIELD` checked against the declared fields.
    mutating func rule(_ json: JSON, at pointer: String, roots: Set<String>) -> LogicRule? {
        let found = LogicRule.problems(in: json, roots: roots, at: pointer)
        for p in found { problem(DocumentProblem.Code(rawValue: p.code), p.message, at: p.at) }
        guard found.isEmpty, let rule = try? LogicRule(json, roots: roots, at: pointer) else { return nil }
        if roots.contains("state") {
            for path in rule.variables {
                let steps = path.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
                guard steps.count > 1, steps[0] == "state" else { continue }
                let field = String(steps[1])
                if !fields.contains(field) {
                    problem(.unknownField, "\"\(path)\" reads \"\(field)\", which is not a field of the state" + Suggestion.hint(field, among: fields), at: pointer)
                }
            }
        }
        return rule
    }
}
