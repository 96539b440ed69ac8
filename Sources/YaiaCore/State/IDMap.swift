/// A dictionary keyed by the ids a runtime hands out (scenes, effects),
/// hashed as the standard library hashes any Int64.
public struct IDMap<Value> {
    @usableFromInline var storage: [Int64: Value] = [:]

    public init() {}

    @inlinable
    public subscript(id: Int64) -> Value? {
        get { storage[id] }
        _modify { yield &storage[id] }
    }

    @inlinable @discardableResult
    public mutating func removeValue(forKey id: Int64) -> Value? { storage.removeValue(forKey: id) }

    public var keys: some Collection<Int64> { storage.keys }
    public var values: some Collection<Value> { storage.values }
    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }
    public mutating func removeAll() { storage.removeAll() }
}

extension IDMap: Sequence {
    public func makeIterator() -> some IteratorProtocol<(id: Int64, value: Value)> {
        storage.lazy.map { (id: $0.key, value: $0.value) }.makeIterator()
    }
}

extension IDMap: Equatable where Value: Equatable {}
extension IDMap: Sendable where Value: Sendable {}
