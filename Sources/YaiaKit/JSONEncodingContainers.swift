// The encoder's keyed, unkeyed and single-value containers, each writing into its node.

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
