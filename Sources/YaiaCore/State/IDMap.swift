/// A dictionary keyed by the ids a runtime hands out (scenes, effects).
/// The runtime numbers them itself, one after another, and callers can only
/// look them up, never choose one that is stored, so a cheap mixing hash
/// spreads them as well as the standard library's SipHash does, at a
/// fraction of its cost: an effect's round trip looks ids up about ten times.
public struct IDMap<Value> {
    @usableFromInline
    struct Key: Hashable, Sendable {
        @usableFromInline let id: Int64

        @inlinable init(_ id: Int64) { self.id = id }

        @inlinable func hash(into hasher: inout Hasher) { hasher.combine(id) }

        // What Dictionary calls; `hash(into:)` is kept for any other hasher.
        // The per-table seed goes in first, so that two tables do not share
        // one order of buckets. Then the finalizer of MurmurHash3.
        @inlinable func _rawHashValue(seed: Int) -> Int {
            var x = UInt64(bitPattern: id) ^ UInt64(UInt(bitPattern: seed))
            x ^= x >> 33
            x &*= 0xff51_afd7_ed55_8ccd
            x ^= x >> 33
            x &*= 0xc4ce_b9fe_1a85_ec53
            x ^= x >> 33
            return Int(Int64(bitPattern: x))
        }
    }

    @usableFromInline var storage: [Key: Value] = [:]

    public init() {}

    @inlinable
    public subscript(id: Int64) -> Value? {
        get { storage[Key(id)] }
        _modify { yield &storage[Key(id)] }
    }

    @inlinable @discardableResult
    public mutating func removeValue(forKey id: Int64) -> Value? { storage.removeValue(forKey: Key(id)) }

    public var keys: some Collection<Int64> { storage.keys.lazy.map(\.id) }
    public var values: some Collection<Value> { storage.values }
    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }
    public mutating func removeAll() { storage.removeAll() }
}

extension IDMap: Sequence {
    public func makeIterator() -> some IteratorProtocol<(id: Int64, value: Value)> {
        storage.lazy.map { (id: $0.key.id, value: $0.value) }.makeIterator()
    }
}

extension IDMap: Equatable where Value: Equatable {}
extension IDMap: Sendable where Value: Sendable {}
