import YaiaKit

// Reading expressions: conditions, value templates and JSON Logic rules, each with its roots.

extension DocumentReader {
    /// A `when` or an invariant: always JSON Logic, read as a truth value.
    mutating func condition(_ json: JSON, at pointer: String, roots: Set<String> = actionRoots) -> LogicRule? {
        guard rule(json, at: pointer, roots: roots) != nil else { return nil }
        return try? LogicRule(truthOf: json, roots: roots, at: pointer)
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
