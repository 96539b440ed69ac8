// The encoder: JSONValueEncoder, the JSON of values JSON carries directly, and the node each value is encoded into.

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
