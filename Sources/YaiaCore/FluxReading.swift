// What the code @FluxActions (product YaiaActions) writes calls to read an
// action's values. Each reader agrees with the Decodable default of
// SceneCoding.swift to the error: the common shapes (a string, a boolean, an
// integer, a number, a JSON value) are read inline, and anything else, or
// any failure, goes through the same DecodingNode the default uses.

extension Action {
    /// The whole payload as a case's single unlabeled value.
    @inlinable
    public func payloadValue<T: Decodable>(_: T.Type) throws(YaiaError) -> T {
        if let v: T = fluxDirect(payload ?? .null) { return v }
        return try readPayload(T.self, .whole)
    }

    /// An Optional single value: nil for a missing or null payload.
    @inlinable
    public func payloadValue<T: Decodable>(_: T?.Type) throws(YaiaError) -> T? {
        guard let p = payload, !p.isNull else { return nil }
        if let v: T = fluxDirect(p) { return v }
        return try readPayload(T.self, .whole)
    }

    /// Element `index` of an array payload, for a case with several
    /// unlabeled values. Like the default, the first value takes the whole
    /// payload when it is not an array.
    @inlinable
    public func payloadElement<T: Decodable>(_ index: Int, _: T.Type) throws(YaiaError) -> T {
        if case .array(let a)? = payload, index < a.count, let v: T = fluxDirect(a[index]) { return v }
        return try readPayload(T.self, .element(index))
    }

    @inlinable
    public func payloadElement<T: Decodable>(_ index: Int, _: T?.Type) throws(YaiaError) -> T? {
        if case .array(let a)? = payload, index < a.count {
            if a[index].isNull { return nil }
            if let v: T = fluxDirect(a[index]) { return v }
        }
        return try readOptionalPayload(T.self, .element(index))
    }

    /// Member `name` of an object payload, for a case with labeled values.
    @inlinable
    public func payloadMember<T: Decodable>(_ name: String, _: T.Type) throws(YaiaError) -> T {
        if case .object(let o)? = payload, let m = o[name], let v: T = fluxDirect(m) { return v }
        return try readPayload(T.self, .member(name))
    }

    /// An Optional member: nil when missing or null, or when the whole
    /// payload is missing or null.
    @inlinable
    public func payloadMember<T: Decodable>(_ name: String, _: T?.Type) throws(YaiaError) -> T? {
        switch payload {
        case nil, .null?: return nil
        case .object(let o)?:
            guard let m = o[name], !m.isNull else { return nil }
            if let v: T = fluxDirect(m) { return v }
        default: break
        }
        return try readOptionalPayload(T.self, .member(name))
    }

    /// Reads through the Decodable default's nodes: its errors, its slow path.
    @usableFromInline
    func readPayload<T: Decodable>(_: T.Type, _ place: FluxPlace) throws(YaiaError) -> T {
        let node = fluxPayloadNode()
        guard let (v, k) = try node.lookup(place) else {
            switch place {
            case .element(let i): throw YaiaError(.badPayload, "needs element \(i)", at: node.pointer(.index(i)))
            case .member(let name): throw node.missing(name)
            case .whole: preconditionFailure("a whole payload is never absent")
            }
        }
        do { return try node.decode(T.self, v, k) } catch { throw node.failure(error) }
    }

    @usableFromInline
    func readOptionalPayload<T: Decodable>(_: T.Type, _ place: FluxPlace) throws(YaiaError) -> T? {
        let node = fluxPayloadNode()
        guard let (v, k) = try node.lookup(place), !v.isNull else { return nil }
        do { return try node.decode(T.self, v, k) } catch { throw node.failure(error) }
    }

    func fluxPayloadNode() -> DecodingNode {
        DecodingNode(value: payload ?? .null, parent: nil, key: .none,
                     context: DecodingContext(code: .badPayload, base: "/payload", rootSubject: "the payload",
                                              rootMissing: payload == nil))
    }
}

/// Where a case's value is in the payload.
@usableFromInline
enum FluxPlace {
    case whole
    /// Of a case with several unlabeled values.
    case element(Int)
    case member(String)
}

extension DecodingNode {
    /// FluxValues.lookup, for a place named by generated code.
    func lookup(_ place: FluxPlace) throws(YaiaError) -> (JSON, PathKey)? {
        switch place {
        case .whole:
            return (value, .none)
        case .element(let i):
            guard case .array(let a) = value else {
                // The first of several values is the whole payload then.
                if i == 0 { return (value, .none) }
                throw mismatch(.none, "an array", value)
            }
            return i < a.count ? (a[i], .index(i)) : nil
        case .member(let name):
            switch value {
            case .object(let o): return o[name].map { ($0, .name(name)) }
            case .null: return nil
            default: throw mismatch(.none, "an object", value)
            }
        }
    }
}

/// `v` as `T` when T is one of the types JSON carries directly and `v` has
/// that type exactly; nil sends the caller to the full reader. The type
/// tests fold away once specialized.
@inlinable @inline(__always)
func fluxDirect<T>(_ v: JSON) -> T? {
    if T.self == String.self { if case .string(let s) = v { return s as? T }; return nil }
    if T.self == Bool.self { if case .bool(let b) = v { return b as? T }; return nil }
    if T.self == Int.self { if case .int(let i) = v { return Int(i) as? T }; return nil }
    if T.self == Int64.self { if case .int(let i) = v { return i as? T }; return nil }
    if T.self == Double.self {
        switch v {
        case .double(let d): return d as? T
        case .int(let i): return Double(i) as? T
        default: return nil
        }
    }
    if T.self == JSON.self { return v as? T }
    return nil
}
