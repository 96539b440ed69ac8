import YaiaKit

// Reading a branch's commands: action names, effects with their policies, and routes.

extension DocumentReader {
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
}
