import YaiaKit

/// What a valid scene document may well not mean. An object inside an
/// operator's arguments is a literal (docs/logic.md): an expression in it is
/// kept as data, never evaluated, though it reads as if it were. The
/// `object` operator builds an object whose members are evaluated.
extension SceneDocument {
    /// The warnings of `json`, in document order: each at the literal
    /// object's pointer, code `expression_in_literal`.
    public static func warnings(_ json: JSON) -> [DocumentProblem] {
        guard case .object(let o) = json else { return [] }
        var finder = LiteralExpressionFinder()
        for (key, value) in o["state"]?.objectValue ?? [:] { finder.template(value, at: JSONPointer.appending("/state", key)) }
        for (name, action) in o["actions"]?.objectValue ?? [:] {
            let at = JSONPointer.appending("/actions", name)
            switch action {
            case .array(let list):
                for (i, b) in list.enumerated() { finder.branch(b, at: JSONPointer.appending(at, i)) }
            case .object(let a) where a["branches"] != nil:
                for (i, b) in (a["branches"]?.arrayValue ?? []).enumerated() { finder.branch(b, at: JSONPointer.appending(JSONPointer.appending(at, "branches"), i)) }
            default:
                finder.branch(action, at: at)
            }
        }
        for (key, value) in o["view"]?.objectValue ?? [:] { finder.template(value, at: JSONPointer.appending("/view", key)) }
        for (key, value) in o["invariants"]?.objectValue ?? [:] { finder.rule(value, at: JSONPointer.appending("/invariants", key)) }
        return finder.found
    }
}

struct LiteralExpressionFinder {
    var found: [DocumentProblem] = []

    mutating func branch(_ json: JSON, at pointer: String) {
        guard case .object(let o) = json else { return }
        func at(_ key: String) -> String { JSONPointer.appending(pointer, key) }
        if let w = o["when"] { rule(w, at: at("when")) }
        for (key, value) in o["set"]?.objectValue ?? [:] { template(value, at: JSONPointer.appending(at("set"), key)) }
        if let c = o["cancel"] { template(c, at: at("cancel")) }
        for (i, e) in (o["effects"]?.arrayValue ?? []).enumerated() {
            let effect = JSONPointer.appending(at("effects"), i)
            for key in ["args", "id"] { if let v = e[key] { template(v, at: JSONPointer.appending(effect, key)) } }
        }
        for key in ["args", "result"] { if let v = o["route"]?[key] { template(v, at: JSONPointer.appending(at("route"), key)) } }
    }

    /// A value template: its objects and arrays are evaluated member by member.
    mutating func template(_ json: JSON, at pointer: String) {
        switch json {
        case .object(let o) where o.count == 1 && o.members[0].key == DocumentReader.literalKey: return
        case .object(let o) where o.count == 1 && logicOperators[o.members[0].key] != nil: rule(json, at: pointer)
        case .object(let o): for (key, value) in o { template(value, at: JSONPointer.appending(pointer, key)) }
        case .array(let list): for (i, item) in list.enumerated() { template(item, at: JSONPointer.appending(pointer, i)) }
        default: return
        }
    }

    /// An expression: the arguments of each operator in it.
    mutating func rule(_ json: JSON, at pointer: String) {
        guard case .object(let o) = json, o.count == 1, logicOperators[o.members[0].key] != nil else { return }
        let (op, operand) = (o.members[0].key, o.members[0].value)
        let at = JSONPointer.appending(pointer, op)
        switch operand {
        case .object(let members) where op == "object":
            for (key, value) in members { argument(value, of: op, at: JSONPointer.appending(at, key)) }
        case .array(let list):
            for (i, item) in list.enumerated() { argument(item, of: op, at: JSONPointer.appending(at, i)) }
        default:
            argument(operand, of: op, at: at)
        }
    }

    private mutating func argument(_ json: JSON, of op: String, at pointer: String) {
        switch json {
        case .object(let o) where o.count == 1:
            rule(json, at: pointer)  // an operator; any other one-key object is unknown_operator
        case .object:
            guard let inner = Self.expression(in: json, at: pointer) else { return }
            found.append(DocumentProblem(.expressionInLiteral,
                "this object in the arguments of \"\(op)\" is a literal: the expression at \(inner) is kept as data, "
                + "not evaluated; build the object with the \"object\" operator: {\"object\": {\"KEY\": EXPRESSION, ...}}", at: pointer))
        case .array(let list):
            for (i, item) in list.enumerated() { argument(item, of: op, at: JSONPointer.appending(pointer, i)) }
        default:
            return
        }
    }

    /// The pointer of the first operator expression inside a literal value.
    static func expression(in json: JSON, at pointer: String) -> String? {
        switch json {
        case .object(let o) where o.count == 1 && logicOperators[o.members[0].key] != nil:
            return pointer
        case .object(let o):
            for (key, value) in o { if let p = expression(in: value, at: JSONPointer.appending(pointer, key)) { return p } }
            return nil
        case .array(let list):
            for (i, item) in list.enumerated() { if let p = expression(in: item, at: JSONPointer.appending(pointer, i)) { return p } }
            return nil
        default:
            return nil
        }
    }
}

extension DocumentProblem.Code {
    /// A warning: an expression inside a literal object, never evaluated.
    public static let expressionInLiteral = Self(rawValue: "expression_in_literal")
}
