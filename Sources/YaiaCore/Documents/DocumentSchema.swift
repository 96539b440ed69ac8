import YaiaKit

/// A document's interface as JSON Schema: what it takes (arguments,
/// actions), what it holds (state), what it emits (effects, routes) and
/// what it shows (view model). Types come from declarations, from literal
/// values, and from expressions whose result type their operator tells;
/// where nothing tells, the schema is `{}`.
extension SceneDocument {
    /// A JSON Schema (draft 2020-12) with one definition per part under
    /// `$defs`: `args`, `state`, `action`, `effect`, `route`, `viewModel`.
    public var schema: JSON {
        let s = storage
        var argumentTypes: [String: JSON] = [:]
        var args = JSONObject()
        var argumentProperties = JSONObject()
        var required: [JSON] = []
        for (key, argument) in s.args ?? [] {
            var schema = argument.type.schema
            argumentTypes[key] = schema
            if let d = argument.default { schema = schema.with("default", d) }
            else if !argument.type.acceptsNull { required.append(.string(key)) }
            if let d = argument.description { schema = schema.with("description", .string(d)) }
            argumentProperties[key] = schema
        }
        args["type"] = "object"
        args["properties"] = .object(argumentProperties)
        if !required.isEmpty { args["required"] = .array(required) }
        args["additionalProperties"] = false

        let initial = SchemaContext(roots: ["args": SchemaContext.object(argumentTypes)])
        var fieldTypes: [String: JSON] = [:]
        for (key, template) in s.state { fieldTypes[key] = initial.infer(template) }
        let state = SchemaContext.object(fieldTypes, closed: true)

        var actions: [JSON] = []
        var effects: [JSON] = []
        var routes: [JSON] = []
        for name in s.actions.keys.sorted(by: { compareKeys($0, $1) < 0 }) {
            guard let action = s.actions[name] else { continue }
            var properties: JSONObject = ["type": ["const": .string(name)]]
            var needs: [JSON] = ["type"]
            var payload: JSON = [:]
            if let declared = action.payload {
                payload = declared.schema
                properties["payload"] = payload
                if !declared.acceptsNull { needs.append("payload") }
            }
            actions.append(["type": "object", "properties": .object(properties), "required": .array(needs)])
            let context = SchemaContext(roots: ["state": state, "payload": payload])
            for branch in action.branches {
                for effect in branch.effects {
                    let e = context.schema(of: effect)
                    if !effects.contains(e) { effects.append(e) }
                }
                if let route = branch.route {
                    let r = context.schema(of: route)
                    if !routes.contains(r) { routes.append(r) }
                }
            }
        }

        var viewModel = state
        if let view = s.view {
            let context = SchemaContext(roots: ["state": state])
            var fields: [String: JSON] = [:]
            for (key, template) in view { fields[key] = context.infer(template) }
            viewModel = SchemaContext.object(fields, closed: true)
        }
        func alternatives(_ list: [JSON]) -> JSON { list.isEmpty ? false : ["oneOf": .array(list)] }
        return [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": .string(s.name),
            "$defs": ["args": .object(args), "state": state, "action": alternatives(actions),
                      "effect": alternatives(effects), "route": alternatives(routes), "viewModel": viewModel],
        ]
    }
}

/// What the roots of an expression are known to hold, as schemas.
struct SchemaContext {
    var roots: [String: JSON]

    static func object(_ properties: [String: JSON], closed: Bool = false) -> JSON {
        var o: JSONObject = ["type": "object", "properties": .object(JSONObject(properties.map { ($0.key, $0.value) }))]
        if closed {
            o["required"] = .array(properties.keys.sorted { compareKeys($0, $1) < 0 }.map(JSON.string))
            o["additionalProperties"] = false
        }
        return .object(o)
    }

    static let booleanOperators: Set<String> = ["!", "!!", "==", "===", "!=", "!==", "<", ">", "<=", ">=", "in",
                                                 "all", "some", "none", "startsWith", "endsWith"]
    static let stringOperators: Set<String> = ["cat", "substr", "lower", "upper", "trim", "join"]
    static let numberOperators: Set<String> = ["+", "-", "*", "/", "%", "max", "min", "length", "now"]
    static let arrayOperators: Set<String> = ["map", "filter", "merge", "split", "append", "remove", "without", "replaceById", "update"]

    func infer(_ template: Template) -> JSON {
        switch template {
        case .literal(let value): return SchemaContext.literal(value)
        case .object(let members):
            return SchemaContext.object(Dictionary(members.map { ($0.key, infer($0.value)) }, uniquingKeysWith: { a, _ in a }))
        case .array: return ["type": "array"]
        case .rule(_, let json): return infer(rule: json)
        }
    }

    /// A literal's type; null says nothing (a field that starts as null is
    /// usually set to something else later).
    static func literal(_ value: JSON) -> JSON {
        switch value {
        case .null: return [:]
        case .bool: return ["type": "boolean"]
        case .int, .uint, .double: return ["type": "number"]
        case .string: return ["type": "string"]
        case .array: return ["type": "array"]
        case .object(let o): return object(Dictionary(o.map { ($0.key, literal($0.value)) }, uniquingKeysWith: { a, _ in a }))
        }
    }

    func infer(rule: JSON) -> JSON {
        guard case .object(let o) = rule, o.count == 1, let m = o.members.first else {
            if case .array = rule { return ["type": "array"] }
            return SchemaContext.literal(rule)
        }
        let args = m.value.arrayValue ?? [m.value]
        switch m.key {
        case "var":
            guard case .string(let path)? = args.first, args.count == 1 else { return [:] }
            return lookup(path)
        case _ where SchemaContext.booleanOperators.contains(m.key): return ["type": "boolean"]
        case _ where SchemaContext.stringOperators.contains(m.key): return ["type": "string"]
        case _ where SchemaContext.numberOperators.contains(m.key): return ["type": "number"]
        case _ where SchemaContext.arrayOperators.contains(m.key): return ["type": "array"]
        case "and", "or": return same(args.map { infer(rule: $0) })
        case "if", "?:":
            // The results: every second argument, and the last (the else).
            var results: [JSON] = []
            var i = 1
            while i < args.count {
                results.append(infer(rule: args[i]))
                i += 2
            }
            if args.count % 2 == 1, let last = args.last { results.append(infer(rule: last)) }
            return same(results)
        default: return [:]
        }
    }

    /// The one schema all of `list` share, or `{}`.
    func same(_ list: [JSON]) -> JSON {
        guard let first = list.first, list.allSatisfy({ $0 == first }) else { return [:] }
        return first
    }

    /// The schema at a dotted path, through `properties` and `items`.
    func lookup(_ path: String) -> JSON {
        let steps = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let first = steps.first, var schema = roots[first] else { return [:] }
        for step in steps.dropFirst() {
            if let p = schema["properties"]?[step] { schema = p }
            else if Int(step) != nil, let items = schema["items"] { schema = items }
            else { return [:] }
        }
        return schema
    }

    func schema(of effect: DocumentEffect) -> JSON {
        var properties: JSONObject = ["service": ["const": .string(effect.service)], "op": ["const": .string(effect.op)],
                                      "args": infer(effect.args)]
        if let then = effect.then { properties["then"] = ["const": .string(then)] }
        if let c = effect.catch { properties["catch"] = ["const": .string(c)] }
        return ["type": "object", "properties": .object(properties), "required": ["service", "op"]]
    }

    func schema(of route: DocumentRoute) -> JSON {
        var properties = JSONObject()
        let kind: String
        func scene(_ key: String, _ name: String) -> String {
            properties[key] = ["const": .string(name)]
            return key
        }
        switch route {
        case .push(let name, let args, let onResult), .present(let name, let args, let onResult):
            if case .push = route { kind = scene("push", name) } else { kind = scene("present", name) }
            if let args { properties["args"] = infer(args) }
            if let onResult { properties["onResult"] = ["const": .string(onResult)] }
        case .replace(let name, let args):
            kind = scene("replace", name)
            if let args { properties["args"] = infer(args) }
        case .pop(let result), .dismiss(let result):
            kind = { if case .pop = route { return "pop" } else { return "dismiss" } }()
            properties[kind] = ["const": true]
            if let result { properties["result"] = infer(result) }
        case .popToRoot:
            kind = "popToRoot"
            properties[kind] = ["const": true]
        case .popTo(let name):
            kind = scene("popTo", name)
        }
        return ["type": "object", "properties": .object(properties), "required": [.string(kind)]]
    }
}

extension JSON {
    /// An object with one more member.
    func with(_ key: String, _ value: JSON) -> JSON {
        guard case .object(var o) = self else { return self }
        o[key] = value
        return .object(o)
    }
}
