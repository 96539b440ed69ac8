import YaiaKit

/// A type declaration of a scene document (a payload's or an argument's),
/// read into the JSON Schema subset that every form of declaration maps
/// onto: `"string?"`, `["string"]`, `{"id": "integer"}` and `{"schema": S}`
/// become one kind of node, checked by one function and written back as
/// standard JSON Schema.
public final class DeclaredType: Sendable {
    /// JSON types, as JSON Schema names them.
    public enum Kind: String, Sendable, CaseIterable {
        case null, boolean, object, array, number, integer, string
    }

    /// Nil: any type.
    let kinds: [Kind]?
    /// An object's members: `properties`, `required`, `additionalProperties`.
    struct Members: Sendable {
        var properties: [(key: String, type: DeclaredType)] = []
        var required: [String] = []
        var additional = true
    }

    /// `minLength`, `maxLength`, `minimum` and `maximum`; the numbers as
    /// written, so that the schema shows them as they were.
    struct Bounds: Sendable {
        var minLength: Int?
        var maxLength: Int?
        var minimum: JSON?
        var maximum: JSON?
    }

    let members: Members
    let items: DeclaredType?
    let enumeration: [JSON]?
    let bounds: Bounds
    let description: String?

    var properties: [(key: String, type: DeclaredType)] { members.properties }
    var required: [String] { members.required }
    var additionalProperties: Bool { members.additional }
    var minLength: Int? { bounds.minLength }
    var maxLength: Int? { bounds.maxLength }
    var minimum: JSON? { bounds.minimum }
    var maximum: JSON? { bounds.maximum }

    init(kinds: [Kind]?, members: Members = Members(), items: DeclaredType? = nil, enumeration: [JSON]? = nil,
         bounds: Bounds = Bounds(), description: String? = nil) {
        self.kinds = kinds
        self.members = members
        self.items = items
        self.enumeration = enumeration
        self.bounds = bounds
        self.description = description
    }

    static let any = DeclaredType(kinds: nil)

    /// The type of a literal value's kind (an argument's default); any for null.
    static func of(_ value: JSON) -> DeclaredType {
        switch value {
        case .null: return .any
        case .bool: return DeclaredType(kinds: [.boolean])
        case .int, .uint, .double: return DeclaredType(kinds: [.number])
        case .string: return DeclaredType(kinds: [.string])
        case .array: return DeclaredType(kinds: [.array])
        case .object: return DeclaredType(kinds: [.object])
        }
    }

    /// Whether null (and so an absent payload or member) is accepted: by
    /// every keyword, so that an enum without null makes its value required.
    var acceptsNull: Bool { mismatch(.null) == nil }

    // MARK: reading

    static let shorthandNames = ["string", "number", "integer", "boolean", "object", "array", "any"]
    static let schemaKeywords = ["type", "properties", "required", "additionalProperties", "items", "enum",
                                 "minLength", "maxLength", "minimum", "maximum", "description"]

    /// Reads a declaration; each problem is reported (code `bad_declaration`)
    /// and the declaration then reads as any.
    static func read(_ json: JSON, at pointer: String, problems: inout [DocumentProblem]) -> DeclaredType {
        switch json {
        case .string(let name):
            return shorthand(name, at: pointer, problems: &problems) ?? .any
        case .array(let list):
            guard list.count == 1 else {
                problems.append(.init(.badDeclaration, "an array declaration holds exactly one declaration, of its elements", at: pointer))
                return .any
            }
            return DeclaredType(kinds: [.array], items: read(list[0], at: JSONPointer.appending(pointer, 0), problems: &problems))
        case .object(let o):
            if o.count == 1, let schema = o["schema"] {
                return readSchema(schema, at: JSONPointer.appending(pointer, "schema"), problems: &problems)
            }
            var properties: [(key: String, type: DeclaredType)] = []
            var required: [String] = []
            for (key, value) in o {
                let type = read(value, at: JSONPointer.appending(pointer, key), problems: &problems)
                properties.append((key, type))
                if !type.acceptsNull { required.append(key) }
            }
            return DeclaredType(kinds: [.object], members: Members(properties: properties, required: required))
        default:
            problems.append(.init(.badDeclaration, "a type declaration is a type name, [DECLARATION], an object of declarations or {\"schema\": ...}, not \(json.kindName)", at: pointer))
            return .any
        }
    }

    private static func shorthand(_ name: String, at pointer: String, problems: inout [DocumentProblem]) -> DeclaredType? {
        var base = Substring(name)
        let optional = base.hasSuffix("?")
        if optional { base = base.dropLast() }
        guard shorthandNames.contains(String(base)) else {
            problems.append(.init(.badDeclaration, "\"\(name)\" is not a type" + Suggestion.hint(String(base), among: shorthandNames), at: pointer))
            return nil
        }
        guard base != "any", let kind = Kind(rawValue: String(base)) else { return .any }
        return DeclaredType(kinds: optional ? [kind, .null] : [kind])
    }

    private static func readSchema(_ json: JSON, at pointer: String, problems: inout [DocumentProblem]) -> DeclaredType {
        guard case .object(let o) = json else {
            problems.append(.init(.badDeclaration, "a schema is an object, not \(json.kindName)", at: pointer))
            return .any
        }
        func bad(_ key: String, _ message: String) {
            problems.append(.init(.badDeclaration, message, at: JSONPointer.appending(pointer, key)))
        }
        for key in o.keys where !schemaKeywords.contains(key) {
            bad(key, "\"\(key)\" is not a schema keyword Yaia reads" + Suggestion.hint(key, among: schemaKeywords))
        }
        var kinds: [Kind]?
        switch o["type"] {
        case nil: break
        case .string(let name)?:
            if let k = Kind(rawValue: name) { kinds = [k] } else { bad("type", "\"\(name)\" is not a JSON Schema type" + Suggestion.hint(name, among: Kind.allCases.map(\.rawValue))) }
        case .array(let names)?:
            var list: [Kind] = []
            for (i, n) in names.enumerated() {
                if case .string(let name) = n, let k = Kind(rawValue: name) { list.append(k) }
                else { problems.append(.init(.badDeclaration, "a type list holds JSON Schema type names", at: JSONPointer.appending(JSONPointer.appending(pointer, "type"), i))) }
            }
            kinds = list
        case let other?: bad("type", "\"type\" is a type name or a list of them, not \(other.kindName)")
        }
        var properties: [(key: String, type: DeclaredType)] = []
        if let p = o["properties"] {
            if case .object(let members) = p {
                for (key, value) in members {
                    properties.append((key, readSchema(value, at: JSONPointer.appending(JSONPointer.appending(pointer, "properties"), key), problems: &problems)))
                }
            } else { bad("properties", "\"properties\" is an object of schemas, not \(p.kindName)") }
        }
        var required: [String] = []
        if let r = o["required"] {
            if case .array(let names) = r, names.allSatisfy({ $0.stringValue != nil }) { required = names.compactMap(\.stringValue) }
            else { bad("required", "\"required\" is a list of member names") }
        }
        var additional = true
        if let a = o["additionalProperties"] {
            if case .bool(let b) = a { additional = b } else { bad("additionalProperties", "\"additionalProperties\" is a boolean here") }
        }
        var items: DeclaredType?
        if let i = o["items"] { items = readSchema(i, at: JSONPointer.appending(pointer, "items"), problems: &problems) }
        var enumeration: [JSON]?
        if let e = o["enum"] {
            if case .array(let values) = e, !values.isEmpty { enumeration = values.elements } else { bad("enum", "\"enum\" is a non-empty list of values") }
        }
        func count(_ key: String) -> Int? {
            guard let v = o[key] else { return nil }
            guard let n = v.int64Value, n >= 0, let i = Int(exactly: n) else {
                bad(key, "\"\(key)\" is a whole number from 0")
                return nil
            }
            return i
        }
        func bound(_ key: String) -> JSON? {
            guard let v = o[key] else { return nil }
            guard v.isNumber else {
                bad(key, "\"\(key)\" is a number, not \(v.kindName)")
                return nil
            }
            return v
        }
        var description: String?
        if let d = o["description"] {
            if case .string(let s) = d { description = s } else { bad("description", "\"description\" is a string") }
        }
        let bounds = Bounds(minLength: count("minLength"), maxLength: count("maxLength"), minimum: bound("minimum"), maximum: bound("maximum"))
        return DeclaredType(kinds: kinds, members: Members(properties: properties, required: required, additional: additional),
                            items: items, enumeration: enumeration, bounds: bounds, description: description)
    }

    // MARK: checking

    /// Why `value` does not match: where (a pointer relative to the value)
    /// and what is wrong, as the end of a sentence ("must be a string, not a number").
    struct Mismatch: Sendable, Equatable {
        var at: String
        var problem: String
    }

    func mismatch(_ value: JSON, at pointer: String = "") -> Mismatch? {
        if let kinds, !kinds.contains(where: { DeclaredType.matches(value, $0) }) {
            let shown = value.isNumber && kinds.contains(.integer) ? "\(value)" : value.kindName
            return Mismatch(at: pointer, problem: "must be \(DeclaredType.describe(kinds)), not \(shown)")
        }
        if let enumeration, !enumeration.contains(value) {
            return Mismatch(at: pointer, problem: "must be one of " + enumeration.map(\.description).joined(separator: ", "))
        }
        switch value {
        case .string(let s):
            let length = s.unicodeScalars.count
            if let minLength, length < minLength { return Mismatch(at: pointer, problem: "must be at least \(counted(minLength, "character")) long") }
            if let maxLength, length > maxLength { return Mismatch(at: pointer, problem: "must be at most \(counted(maxLength, "character")) long") }
        case .int, .uint, .double:
            let d = value.doubleValue ?? 0
            if let minimum, let m = minimum.doubleValue, d < m { return Mismatch(at: pointer, problem: "must be at least \(minimum)") }
            if let maximum, let m = maximum.doubleValue, d > m { return Mismatch(at: pointer, problem: "must be at most \(maximum)") }
        case .array(let elements):
            if let items {
                // The pointer is built for the mismatch found only: long lists are checked often.
                for (i, e) in elements.enumerated() {
                    if let m = items.mismatch(e) { return Mismatch(at: JSONPointer.appending(pointer, i) + m.at, problem: m.problem) }
                }
            }
        case .object(let o):
            for key in required where o[key] == nil {
                return Mismatch(at: JSONPointer.appending(pointer, key), problem: "is missing")
            }
            for (key, type) in properties {
                if let v = o[key], let m = type.mismatch(v) { return Mismatch(at: JSONPointer.appending(pointer, key) + m.at, problem: m.problem) }
            }
            if !additionalProperties {
                for (key, _) in o where !properties.contains(where: { $0.key == key }) {
                    return Mismatch(at: JSONPointer.appending(pointer, key), problem: "is not allowed" + Suggestion.hint(key, among: properties.map(\.key)))
                }
            }
        default: break
        }
        return nil
    }

    static func matches(_ value: JSON, _ kind: Kind) -> Bool {
        switch (kind, value) {
        case (.null, .null), (.boolean, .bool), (.object, .object), (.array, .array), (.string, .string): return true
        case (.number, .int), (.number, .uint), (.number, .double): return true
        case (.integer, .int), (.integer, .uint): return true
        case (.integer, .double(let d)): return d.rounded() == d
        default: return false
        }
    }

    static func describe(_ kinds: [Kind]) -> String {
        let names = kinds.map { k -> String in
            switch k {
            case .null: return "null"
            case .boolean: return "a boolean"
            case .object: return "an object"
            case .array: return "an array"
            case .number: return "a number"
            case .integer: return "a whole number"
            case .string: return "a string"
            }
        }
        return names.isEmpty ? "nothing" : names.joined(separator: " or ")
    }

    // MARK: JSON Schema

    /// The declaration as standard JSON Schema.
    public var schema: JSON {
        var o = JSONObject()
        if let kinds {
            o["type"] = kinds.count == 1 ? .string(kinds[0].rawValue) : .array(kinds.map { .string($0.rawValue) })
        }
        if !properties.isEmpty {
            o["properties"] = .object(JSONObject(properties.map { ($0.key, $0.type.schema) }))
        }
        if !required.isEmpty { o["required"] = .array(required.map(JSON.string)) }
        if !additionalProperties { o["additionalProperties"] = false }
        if let items { o["items"] = items.schema }
        if let enumeration { o["enum"] = .array(enumeration) }
        if let minLength { o["minLength"] = JSON(minLength) }
        if let maxLength { o["maxLength"] = JSON(maxLength) }
        if let minimum { o["minimum"] = minimum }
        if let maximum { o["maximum"] = maximum }
        if let description { o["description"] = .string(description) }
        return .object(o)
    }
}
