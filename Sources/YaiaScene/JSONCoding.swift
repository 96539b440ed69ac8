// Codable over Yaia's own JSON value: no Foundation, no text in between.
//
// A scene pack reads one action and writes one view model per send, so both
// directions are built for that: one final class per nested value, containers
// that are thin structs over it, members placed in key order as they come,
// and the types JSON carries directly (strings, numbers, booleans, JSON
// itself) written and read without a nested encoder or decoder. Where a value
// lies in a path is only worked out when there is an error to report.
//
// What remains is mostly the standard library's own price for Codable: a box
// and generic metadata per container, and for enums an `allKeys` array that
// it converts twice (to `[any CodingKey]` and back). For a synthesized enum
// that floor is most of an action's decoding time.

// MARK: - Encoder

/// Turns an `Encodable` value into a `JSON` value.
///
/// Objects come out in key order (JSONObject's canonical order), so equal
/// values always give equal bytes. `nil` is written as `null` rather than
/// left out, so that a view model keeps its shape for the UI and matches a
/// JSON form written by hand with `JSON(optional)`. NaN and infinities, which
/// JSON cannot carry, become `null`, as `JSON(Double)` makes them.
/// A `JSON` value inside an Encodable type is copied as it is.
public struct JSONValueEncoder: Sendable {
    public init() {}

    /// Throws only when the value's own `encode(to:)` throws (a custom one, or
    /// Int128, which JSON numbers cannot carry in general): code `internal`,
    /// since the value comes from the program, `at` locating the failing part.
    public func encode<T: Encodable>(_ value: T) throws(YaiaError) -> JSON {
        if let direct = directJSON(value) { return direct }
        let node = EncodingNode(parent: nil, key: .none)
        do {
            try value.encode(to: node)
        } catch {
            throw encodingFailure(error, type: T.self)
        }
        return node.finish()
    }
}

/// Where a nested encoder or decoder sits in its parent: a member, an
/// element, or nowhere (the root, or the same place as its parent).
enum PathKey {
    case none
    case name(String)
    case index(Int)

    var codingKey: (any CodingKey)? {
        switch self {
        case .none: return nil
        case .name(let s): return PathCodingKey(stringValue: s)
        case .index(let i): return PathCodingKey(intValue: i)
        }
    }

    var token: String? {
        switch self {
        case .none: return nil
        case .name(let s): return JSONPointer.token(s)
        case .index(let i): return String(i)
        }
    }
}

/// The coding keys this file makes up for coding paths.
struct PathCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// The JSON of the values JSON carries directly, or nil for anything else.
/// Metatype comparisons are cheap; the casts only run once one has matched.
@inline(__always)
func directJSON<T>(_ value: T) -> JSON? {
    if T.self == JSON.self { return value as? JSON }
    if T.self == String.self { return (value as? String).map(JSON.string) }
    if T.self == Bool.self { return (value as? Bool).map(JSON.bool) }
    if T.self == Int.self { return (value as? Int).map { .int(Int64($0)) } }
    if T.self == Double.self { return (value as? Double).map(JSON.init(_:)) }
    if T.self == Int64.self { return (value as? Int64).map(JSON.int) }
    return nil
}

@inline(__always) func jsonOf(_ v: Float) -> JSON {
    // Through its shortest text, so that 0.1 as a Float is written as 0.1,
    // not as 0.10000000149011612.
    guard v.isFinite else { return .null }
    return .double(Double(v.description) ?? Double(v))
}

@inline(__always) func jsonOf<I: FixedWidthInteger & SignedInteger>(_ v: I) -> JSON { .int(Int64(v)) }
@inline(__always) func jsonOf<U: FixedWidthInteger & UnsignedInteger>(_ v: U) -> JSON { JSON(UInt64(v)) }

func encodingFailure(_ error: any Error, type: Any.Type) -> YaiaError {
    if let e = error as? YaiaError { return e }
    if case EncodingError.invalidValue(_, let context) = error {
        return YaiaError(.internal, "cannot encode \(type): \(context.debugDescription)",
                         at: codingPathPointer(base: "", context.codingPath))
    }
    return YaiaError(.internal, "cannot encode \(type): \(error)", at: "")
}

/// `base` followed by the tokens of a coding path.
func codingPathPointer(base: String, _ path: [any CodingKey]) -> String {
    var p = base
    for key in path {
        p += "/"
        if let i = key.intValue, key.stringValue == String(i) { p += String(i) } else { p += JSONPointer.token(key.stringValue) }
    }
    return p
}

/// One value being encoded. Containers write straight into it; nested
/// containers asked for by `nestedContainer` and `superEncoder` (rare: the
/// usual nested value is encoded at once through `encode(_:forKey:)`) are
/// kept as pending nodes and filled in by `finish()`.
///
/// Members are kept in key order as they come: a type's keys come in the
/// same order every time, mostly close to sorted, so placing each costs a
/// comparison or two. Past `insertLimit` members (large dictionaries, in
/// hash order) the rest are appended and the object is sorted once.
///
/// The stored properties opt out of dynamic exclusivity checks: they cost a
/// runtime call per access (most of an encoding's time, measured), a node
/// never escapes the encoding that made it, and no access here overlaps
/// another (a nested value is encoded completely before it is stored).
final class EncodingNode: Encoder {
    enum Kind { case none, single, object, array }

    struct Pending {
        var key: PathKey
        var node: EncodingNode
    }

    static let insertLimit = 32

    @exclusivity(unchecked) var kind = Kind.none
    @exclusivity(unchecked) var single = JSON.null
    @exclusivity(unchecked) var members: [JSONObject.Member] = []
    /// Whether `members` is in key order, without duplicates.
    @exclusivity(unchecked) var sorted = true
    @exclusivity(unchecked) var elements: [JSON] = []
    @exclusivity(unchecked) var pending: [Pending] = []
    let parent: EncodingNode?
    let key: PathKey

    init(parent: EncodingNode?, key: PathKey) {
        self.parent = parent
        self.key = key
    }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: EncodingNode? = self
        while let n = node {
            if let k = n.key.codingKey { keys.append(k) }
            node = n.parent
        }
        return keys.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // A second keyed container (a subclass after its superclass) adds to the first.
        if kind != .object {
            kind = .object
            members = []
            sorted = true
            pending = []
            members.reserveCapacity(8)
        }
        return KeyedEncodingContainer(KeyedEncoding<Key>(node: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if kind != .array {
            kind = .array
            elements = []
            pending = []
        }
        return UnkeyedEncoding(node: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueEncoding(node: self) }

    func set(_ value: JSON) {
        kind = .single
        single = value
    }

    /// A member; a later one of the same name replaces an earlier one.
    func put(_ name: consuming String, _ value: consuming JSON) {
        let n = members.count
        guard sorted, n > 0 else { return members.append(JSONObject.Member(key: name, value: value)) }
        var order = compareKeys(members[n - 1].key, name)
        if order < 0 { return members.append(JSONObject.Member(key: name, value: value)) }
        if n >= EncodingNode.insertLimit {
            sorted = false
            return members.append(JSONObject.Member(key: name, value: value))
        }
        // members[i] is the first member not before `name`.
        var i = n - 1
        while order > 0 && i > 0 {
            let before = compareKeys(members[i - 1].key, name)
            if before < 0 { break }
            i -= 1
            order = before
        }
        if order == 0 { return members[i].value = value }
        members.append(JSONObject.Member(key: name, value: value))
        members.withUnsafeMutableBufferPointer { b in
            var j = b.count - 1
            while j > i {
                b.swapAt(j, j - 1)
                j -= 1
            }
        }
    }

    /// A nested value, encoded now.
    @inline(__always)
    func encodeChild<T: Encodable>(_ value: T, key: PathKey) throws -> JSON {
        if let direct = directJSON(value) { return direct }
        let child = EncodingNode(parent: self, key: key)
        try value.encode(to: child)
        return child.finish()
    }

    /// A member or element that a nested container fills in by `finish()`.
    func pendingChild(key: PathKey) -> EncodingNode {
        let child = EncodingNode(parent: self, key: key)
        switch (kind, key) {
        case (.object, .name(let name)):
            put(name, .null)
            pending.append(Pending(key: key, node: child))
        case (.array, .index):
            pending.append(Pending(key: .index(elements.count), node: child))
            elements.append(.null)
        default:
            break
        }
        return child
    }

    func finish() -> JSON {
        switch kind {
        case .none:
            // A value that wrote nothing (a struct without stored properties).
            return .object(JSONObject())
        case .single:
            return single
        case .object:
            let m = members
            members = []
            // Sorted already (JSONObject only checks), or sorted once, stably:
            // of equal keys the last written wins.
            var o = JSONObject(members: m)
            for p in pending {
                if case .name(let name) = p.key { o[name] = p.node.finish() }
            }
            return .object(o)
        case .array:
            var e = elements
            elements = []
            for p in pending {
                if case .index(let i) = p.key, i < e.count { e[i] = p.node.finish() }
            }
            return .array(e)
        }
    }
}

struct KeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode

    var codingPath: [any CodingKey] { node.codingPath }

    @inline(__always)
    func put(_ value: consuming JSON, _ key: Key) {
        node.put(key.stringValue, value)
    }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(JSON(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(jsonOf(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(jsonOf(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(jsonOf(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(jsonOf(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(jsonOf(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(jsonOf(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(jsonOf(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(jsonOf(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(jsonOf(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(jsonOf(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(jsonOf(value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let name = key.stringValue
        put(try node.encodeChild(value, key: .name(name)), key)
    }

    // nil is written as null, not left out (see JSONValueEncoder).
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { put(value.map(JSON.bool) ?? .null, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { put(value.map(JSON.string) ?? .null, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { put(value.map(JSON.init(_:)) ?? .null, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { put(value.map(jsonOf) ?? .null, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { put(value.map(jsonOf) ?? .null, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { put(value.map(jsonOf) ?? .null, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { put(value.map(jsonOf) ?? .null, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { put(value.map(jsonOf) ?? .null, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { put(value.map(jsonOf) ?? .null, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { put(value.map(jsonOf) ?? .null, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { put(value.map(jsonOf) ?? .null, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { put(value.map(jsonOf) ?? .null, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { put(value.map(jsonOf) ?? .null, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { put(value.map(jsonOf) ?? .null, key) }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        guard let value else { return put(.null, key) }
        try encode(value, forKey: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        node.pendingChild(key: .name(key.stringValue)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        node.pendingChild(key: .name(key.stringValue)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { node.pendingChild(key: .name("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { node.pendingChild(key: .name(key.stringValue)) }
}

struct UnkeyedEncoding: UnkeyedEncodingContainer {
    let node: EncodingNode

    var codingPath: [any CodingKey] { node.codingPath }
    var count: Int { node.elements.count }

    @inline(__always) func put(_ value: JSON) { node.elements.append(value) }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(JSON(value)) }
    mutating func encode(_ value: Float) throws { put(jsonOf(value)) }
    mutating func encode(_ value: Int) throws { put(jsonOf(value)) }
    mutating func encode(_ value: Int8) throws { put(jsonOf(value)) }
    mutating func encode(_ value: Int16) throws { put(jsonOf(value)) }
    mutating func encode(_ value: Int32) throws { put(jsonOf(value)) }
    mutating func encode(_ value: Int64) throws { put(jsonOf(value)) }
    mutating func encode(_ value: UInt) throws { put(jsonOf(value)) }
    mutating func encode(_ value: UInt8) throws { put(jsonOf(value)) }
    mutating func encode(_ value: UInt16) throws { put(jsonOf(value)) }
    mutating func encode(_ value: UInt32) throws { put(jsonOf(value)) }
    mutating func encode(_ value: UInt64) throws { put(jsonOf(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        put(try node.encodeChild(value, key: .index(node.elements.count)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        node.pendingChild(key: .index(node.elements.count)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        node.pendingChild(key: .index(node.elements.count)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { node.pendingChild(key: .index(node.elements.count)) }
}

struct SingleValueEncoding: SingleValueEncodingContainer {
    let node: EncodingNode

    var codingPath: [any CodingKey] { node.codingPath }

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(JSON(value)) }
    mutating func encode(_ value: Float) throws { node.set(jsonOf(value)) }
    mutating func encode(_ value: Int) throws { node.set(jsonOf(value)) }
    mutating func encode(_ value: Int8) throws { node.set(jsonOf(value)) }
    mutating func encode(_ value: Int16) throws { node.set(jsonOf(value)) }
    mutating func encode(_ value: Int32) throws { node.set(jsonOf(value)) }
    mutating func encode(_ value: Int64) throws { node.set(jsonOf(value)) }
    mutating func encode(_ value: UInt) throws { node.set(jsonOf(value)) }
    mutating func encode(_ value: UInt8) throws { node.set(jsonOf(value)) }
    mutating func encode(_ value: UInt16) throws { node.set(jsonOf(value)) }
    mutating func encode(_ value: UInt32) throws { node.set(jsonOf(value)) }
    mutating func encode(_ value: UInt64) throws { node.set(jsonOf(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let direct = directJSON(value) { return node.set(direct) }
        // A single value takes the place of its container: the wrapped
        // value is encoded into the same node.
        node.kind = .none
        node.pending = []
        try value.encode(to: node)
    }
}

// MARK: - Decoder

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

struct KeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let node: DecodingNode
    let object: JSONObject

    var codingPath: [any CodingKey] { node.codingPath }

    var allKeys: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(object.count)
        for m in object.members { if let k = Key(stringValue: m.key) { keys.append(k) } }
        return keys
    }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    /// The member, or `needs "name"`.
    @inline(__always)
    func member(_ key: Key) throws(YaiaError) -> (JSON, PathKey) {
        let name = key.stringValue
        guard let v = object[name] else { throw node.missing(name) }
        return (v, .name(name))
    }

    /// The member, or nil when it is missing or null.
    @inline(__always)
    func presentMember(_ key: Key) -> (JSON, PathKey)? {
        let name = key.stringValue
        guard let v = object[name], !v.isNull else { return nil }
        return (v, .name(name))
    }

    /// A missing member reads as nil too, like `decodeIfPresent`.
    func decodeNil(forKey key: Key) throws -> Bool { object[key.stringValue]?.isNull ?? true }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { let (v, k) = try member(key); return try node.bool(v, k) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { let (v, k) = try member(key); return try node.string(v, k) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { let (v, k) = try member(key); return try node.double(v, k) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { let (v, k) = try member(key); return try node.float(v, k) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { let (v, k) = try member(key); return try node.integer(type, v, k) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { let (v, k) = try member(key); return try node.integer(type, v, k) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { let (v, k) = try member(key); return try node.integer(type, v, k) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { let (v, k) = try member(key); return try node.integer(type, v, k) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { let (v, k) = try member(key); return try node.integer(type, v, k) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { let (v, k) = try member(key); return try node.integer(type, v, k) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { let (v, k) = try member(key); return try node.integer(type, v, k) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { let (v, k) = try member(key); return try node.integer(type, v, k) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { let (v, k) = try member(key); return try node.integer(type, v, k) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { let (v, k) = try member(key); return try node.integer(type, v, k) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { let (v, k) = try member(key); return try node.decode(type, v, k) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { guard let (v, k) = presentMember(key) else { return nil }; return try node.bool(v, k) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { guard let (v, k) = presentMember(key) else { return nil }; return try node.string(v, k) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { guard let (v, k) = presentMember(key) else { return nil }; return try node.double(v, k) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { guard let (v, k) = presentMember(key) else { return nil }; return try node.float(v, k) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { guard let (v, k) = presentMember(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { guard let (v, k) = presentMember(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { guard let (v, k) = presentMember(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { guard let (v, k) = presentMember(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { guard let (v, k) = presentMember(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { guard let (v, k) = presentMember(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { guard let (v, k) = presentMember(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { guard let (v, k) = presentMember(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { guard let (v, k) = presentMember(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { guard let (v, k) = presentMember(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let (v, k) = presentMember(key) else { return nil }
        return try node.decode(type, v, k)
    }

    func child(_ key: Key) throws(YaiaError) -> DecodingNode {
        let (v, k) = try member(key)
        return DecodingNode(value: v, parent: node, key: k, context: node.context)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        DecodingNode(value: object["super"] ?? .null, parent: node, key: .name("super"), context: node.context)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        let name = key.stringValue
        return DecodingNode(value: object[name] ?? .null, parent: node, key: .name(name), context: node.context)
    }
}

struct UnkeyedDecoding: UnkeyedDecodingContainer {
    let node: DecodingNode
    let elements: [JSON]
    var currentIndex = 0

    init(node: DecodingNode, elements: [JSON]) {
        self.node = node
        self.elements = elements
    }

    var codingPath: [any CodingKey] { node.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The current element; the index moves on only once it has been read.
    @inline(__always)
    func current() throws(YaiaError) -> (JSON, PathKey) {
        guard currentIndex < elements.count else {
            throw YaiaError(node.context.code, "needs element \(currentIndex), has \(elements.count)",
                            at: node.pointer(.index(currentIndex)))
        }
        return (elements[currentIndex], .index(currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < elements.count, elements[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { let (v, k) = try current(); let r = try node.bool(v, k); currentIndex += 1; return r }
    mutating func decode(_ type: String.Type) throws -> String { let (v, k) = try current(); let r = try node.string(v, k); currentIndex += 1; return r }
    mutating func decode(_ type: Double.Type) throws -> Double { let (v, k) = try current(); let r = try node.double(v, k); currentIndex += 1; return r }
    mutating func decode(_ type: Float.Type) throws -> Float { let (v, k) = try current(); let r = try node.float(v, k); currentIndex += 1; return r }
    mutating func decode(_ type: Int.Type) throws -> Int { let (v, k) = try current(); let r = try node.integer(type, v, k); currentIndex += 1; return r }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let (v, k) = try current(); let r = try node.integer(type, v, k); currentIndex += 1; return r }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let (v, k) = try current(); let r = try node.integer(type, v, k); currentIndex += 1; return r }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let (v, k) = try current(); let r = try node.integer(type, v, k); currentIndex += 1; return r }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let (v, k) = try current(); let r = try node.integer(type, v, k); currentIndex += 1; return r }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let (v, k) = try current(); let r = try node.integer(type, v, k); currentIndex += 1; return r }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let (v, k) = try current(); let r = try node.integer(type, v, k); currentIndex += 1; return r }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let (v, k) = try current(); let r = try node.integer(type, v, k); currentIndex += 1; return r }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let (v, k) = try current(); let r = try node.integer(type, v, k); currentIndex += 1; return r }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let (v, k) = try current(); let r = try node.integer(type, v, k); currentIndex += 1; return r }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { let (v, k) = try current(); let r = try node.decode(type, v, k); currentIndex += 1; return r }

    mutating func child() throws(YaiaError) -> DecodingNode {
        let (v, k) = try current()
        currentIndex += 1
        return DecodingNode(value: v, parent: node, key: k, context: node.context)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try child().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try child().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try child() }
}

struct SingleValueDecoding: SingleValueDecodingContainer {
    let node: DecodingNode

    var codingPath: [any CodingKey] { node.codingPath }

    func decodeNil() -> Bool { node.value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try node.bool(node.value, .none) }
    func decode(_ type: String.Type) throws -> String { try node.string(node.value, .none) }
    func decode(_ type: Double.Type) throws -> Double { try node.double(node.value, .none) }
    func decode(_ type: Float.Type) throws -> Float { try node.float(node.value, .none) }
    func decode(_ type: Int.Type) throws -> Int { try node.integer(type, node.value, .none) }
    func decode(_ type: Int8.Type) throws -> Int8 { try node.integer(type, node.value, .none) }
    func decode(_ type: Int16.Type) throws -> Int16 { try node.integer(type, node.value, .none) }
    func decode(_ type: Int32.Type) throws -> Int32 { try node.integer(type, node.value, .none) }
    func decode(_ type: Int64.Type) throws -> Int64 { try node.integer(type, node.value, .none) }
    func decode(_ type: UInt.Type) throws -> UInt { try node.integer(type, node.value, .none) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try node.integer(type, node.value, .none) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try node.integer(type, node.value, .none) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try node.integer(type, node.value, .none) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try node.integer(type, node.value, .none) }
    // A wrapped value is read from the same node: it takes its container's place.
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try node.decode(type, node.value, .none) }
}

// MARK: - Conveniences on JSON

extension JSON {
    /// This value as a `Decodable` type; see `JSONValueDecoder`. For a
    /// scene's arguments: `try args.decode(Args.self, code: .badArgs)`.
    public func decode<T: Decodable>(_ t: T.Type, code: ErrorCode = .badPayload, at: String = "") throws(YaiaError) -> T {
        try JSONValueDecoder().decode(t, from: self, code: code, at: at)
    }

    /// The JSON form of an `Encodable` value; see `JSONValueEncoder`.
    public init<T: Encodable>(encoding value: T) throws(YaiaError) {
        self = try JSONValueEncoder().encode(value)
    }
}
