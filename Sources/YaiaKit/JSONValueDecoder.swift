// The decoder: JSONValueDecoder, the node each value is read from, and its errors.

/// Reads a `Decodable` value from a `JSON` value.
///
/// Strict where JSON is: a string is not a number, and a number must fit its
/// type exactly (1.5 is not an Int, 300 is not a UInt8; 1.0 is an Int).
/// Float is the exception: any number within its range is rounded to it.
/// Lenient where Swift is: a missing member and `null` both read as `nil`
/// for an Optional, and members the type does not know are ignored.
/// A `JSON` value inside a Decodable type is copied as it is.
public struct JSONValueDecoder: Sendable {
    public init() {}

    /// Errors carry `code` and an `at` that is `base` followed by the path
    /// of the faulty part, so that they point into the caller's input (for
    /// example `base` "/args" for an `args` member).
    public func decode<T: Decodable>(_ type: T.Type, from json: JSON, code: ErrorCode = .badPayload,
                                     at base: String = "") throws(YaiaError) -> T {
        let root = DecodingNode(value: json, parent: nil, key: .none,
                                context: DecodingContext(code: code, base: base, rootSubject: "the value"))
        do {
            return try root.decode(T.self, json, .none)
        } catch {
            throw root.failure(error)
        }
    }
}

/// What every node of one decoding shares: how to report an error.
struct DecodingContext {
    var code: ErrorCode
    /// The pointer of the root value.
    var base: String
    /// How messages name the root value.
    var rootSubject: String
    /// The root value is absent rather than null (a Flux action without payload).
    var rootMissing = false
}

/// One value being decoded, and where it is. A decoding error is built from
/// the parent chain only when one is thrown.
final class DecodingNode: Decoder {
    let value: JSON
    let parent: DecodingNode?
    let key: PathKey
    let context: DecodingContext

    init(value: JSON, parent: DecodingNode?, key: PathKey, context: DecodingContext) {
        self.value = value
        self.parent = parent
        self.key = key
        self.context = context
    }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: DecodingNode? = self
        while let n = node {
            if let k = n.key.codingKey { keys.append(k) }
            node = n.parent
        }
        return keys.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let o) = value else { throw mismatch(.none, "an object", value) }
        return KeyedDecodingContainer(KeyedDecoding<Key>(node: self, object: o))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let a) = value else { throw mismatch(.none, "an array", value) }
        return UnkeyedDecoding(node: self, elements: a)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueDecoding(node: self) }

    /// Decodes `value`, found at `key` under this node (`.none`: this node's
    /// own value). Values JSON carries directly are read without a new node.
    @inline(__always)
    func decode<T: Decodable>(_ type: T.Type, _ value: JSON, _ key: PathKey) throws -> T {
        if T.self == JSON.self, let v = value as? T { return v }
        if T.self == String.self, let v = try string(value, key) as? T { return v }
        if T.self == Bool.self, let v = try bool(value, key) as? T { return v }
        if T.self == Int.self, let v = try integer(Int.self, value, key) as? T { return v }
        if T.self == Double.self, let v = try double(value, key) as? T { return v }
        if case .none = key { return try T(from: self) }
        return try T(from: DecodingNode(value: value, parent: self, key: key, context: context))
    }

    // MARK: Reading values JSON carries directly

    @inline(__always)
    func string(_ v: JSON, _ key: PathKey) throws(YaiaError) -> String {
        guard case .string(let s) = v else { throw mismatch(key, "a string", v) }
        return s
    }

    @inline(__always)
    func bool(_ v: JSON, _ key: PathKey) throws(YaiaError) -> Bool {
        guard case .bool(let b) = v else { throw mismatch(key, "a boolean", v) }
        return b
    }

    func double(_ v: JSON, _ key: PathKey) throws(YaiaError) -> Double {
        switch v {
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        case .double(let d): return d
        default: throw mismatch(key, "a number", v)
        }
    }

    func float(_ v: JSON, _ key: PathKey) throws(YaiaError) -> Float {
        let f = Float(try double(v, key))
        guard f.isFinite else { throw fault(key, "\(subject(key)) must be a number within Float's range, not \(v)") }
        return f
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type, _ v: JSON, _ key: PathKey) throws(YaiaError) -> I {
        let result: I?
        switch v {
        case .int(let i): result = I(exactly: i)
        case .uint(let u): result = I(exactly: u)
        case .double(let d):
            guard d.rounded(.towardZero) == d else { throw fault(key, "\(subject(key)) must be a whole number, not \(v)") }
            result = I(exactly: d)
        default: throw mismatch(key, "an integer", v)
        }
        guard let result else { throw fault(key, "\(subject(key)) must be an integer from \(I.min) to \(I.max), not \(v)") }
        return result
    }

    // MARK: Errors

    /// The pointer of this node, followed by `key`.
    func pointer(_ key: PathKey) -> String {
        var tokens: [String] = []
        if let t = key.token { tokens.append(t) }
        var node: DecodingNode? = self
        while let n = node {
            if let t = n.key.token { tokens.append(t) }
            node = n.parent
        }
        var p = context.base
        for t in tokens.reversed() {
            p += "/"
            p += t
        }
        return p
    }

    /// How a message names the value at `key`.
    func subject(_ key: PathKey) -> String {
        switch key {
        case .name(let name): return "\"\(name)\""
        case .index(let i): return "element \(i)"
        case .none:
            switch self.key {
            case .name(let name): return "\"\(name)\""
            case .index(let i): return "element \(i)"
            case .none: return context.rootSubject
            }
        }
    }

    func fault(_ key: PathKey, _ message: String) -> YaiaError {
        YaiaError(context.code, message, at: pointer(key))
    }

    func mismatch(_ key: PathKey, _ expected: String, _ v: JSON) -> YaiaError {
        var kind = v.kindName
        if case .none = key, case .none = self.key, parent == nil, context.rootMissing { kind = "none" }
        return fault(key, "\(subject(key)) must be \(expected), not \(kind)")
    }

    func missing(_ name: String) -> YaiaError {
        YaiaError(context.code, "needs \"\(name)\"", at: pointer(.name(name)))
    }

    /// Any error out of a decoding as a YaiaError; a `DecodingError` thrown by
    /// a type's own `init(from:)` is located by its coding path, which starts
    /// at this (root) node.
    func failure(_ error: any Error) -> YaiaError {
        if let e = error as? YaiaError { return e }
        guard let e = error as? DecodingError else {
            return YaiaError(context.code, "\(error)", at: context.base)
        }
        switch e {
        case .keyNotFound(let key, let c):
            return YaiaError(context.code, "needs \"\(key.stringValue)\"", at: codingPathPointer(base: context.base, c.codingPath + [key]))
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
            return YaiaError(context.code, c.debugDescription, at: codingPathPointer(base: context.base, c.codingPath))
        @unknown default:
            return YaiaError(context.code, "\(error)", at: context.base)
        }
    }
}
