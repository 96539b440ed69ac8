// The decoder's keyed, unkeyed and single-value containers, each reading from its node.

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
    let elements: JSONArray
    var currentIndex = 0

    init(node: DecodingNode, elements: JSONArray) {
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
