/// A map keyed by the ids a runtime hands out (scenes, effects).
///
/// A runtime hands ids out in increasing order, so the entries are kept in an
/// array sorted by id: adding the newest id appends, finding one is a binary
/// search, and nothing is hashed. A removed entry leaves a hole, swept out
/// once holes outnumber entries, so removal stays O(1) amortized. An id
/// older than the newest (a snapshot being restored) is inserted in place.
/// Listing is in id order.
public struct IDMap<Value> {
    @usableFromInline var ids: [Int64] = []
    @usableFromInline var slots: [Value?] = []
    /// The slots that hold a value.
    @usableFromInline var live = 0

    public init() {}

    /// The index of `id` in `ids`, or where it would go.
    @inlinable
    func position(of id: Int64) -> (index: Int, found: Bool) {
        if let last = ids.last, id > last { return (ids.count, false) }
        var low = 0, high = ids.count
        while low < high {
            let mid = low + (high - low) / 2
            if ids[mid] < id { low = mid + 1 } else { high = mid }
        }
        return (low, low < ids.count && ids[low] == id)
    }

    @inlinable
    public subscript(id: Int64) -> Value? {
        get {
            let (i, found) = position(of: id)
            return found ? slots[i] : nil
        }
        set {
            let (i, found) = position(of: id)
            if found {
                let had = slots[i] != nil
                slots[i] = newValue
                live += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
            } else if let newValue {
                ids.insert(id, at: i)
                slots.insert(newValue, at: i)
                live += 1
            }
            if newValue == nil { sweepIfSparse() }
        }
    }

    /// Runs `body` on the value of `id` in place: moved out and back, not
    /// copied, so what it holds stays uniquely referenced. Nil when there is none.
    @inlinable
    public mutating func modify<R>(_ id: Int64, _ body: (inout Value) -> R) -> R? {
        let (i, found) = position(of: id)
        guard found, var value = slots[i] else { return nil }
        slots[i] = nil
        defer { slots[i] = value }
        return body(&value)
    }

    @inlinable @discardableResult
    public mutating func removeValue(forKey id: Int64) -> Value? {
        let old = self[id]
        if old != nil { self[id] = nil }
        return old
    }

    /// Drops the holes once they outnumber the values.
    @usableFromInline
    mutating func sweepIfSparse() {
        let holes = ids.count - live
        guard holes > 16 && holes > live else { return }
        var keptIDs: [Int64] = [], keptSlots: [Value?] = []
        keptIDs.reserveCapacity(live)
        keptSlots.reserveCapacity(live)
        for (id, slot) in zip(ids, slots) where slot != nil {
            keptIDs.append(id)
            keptSlots.append(slot)
        }
        ids = keptIDs
        slots = keptSlots
    }

    public var keys: [Int64] { map(\.id) }
    public var values: [Value] { map(\.value) }
    public var count: Int { live }
    public var isEmpty: Bool { live == 0 }

    public mutating func removeAll() {
        ids.removeAll()
        slots.removeAll()
        live = 0
    }
}

extension IDMap: Sequence {
    public struct Iterator: IteratorProtocol {
        let map: IDMap
        var index = 0

        public mutating func next() -> (id: Int64, value: Value)? {
            while index < map.ids.count {
                defer { index += 1 }
                if let value = map.slots[index] { return (map.ids[index], value) }
            }
            return nil
        }
    }

    public func makeIterator() -> Iterator { Iterator(map: self) }
    public var underestimatedCount: Int { count }
}

extension IDMap: Equatable where Value: Equatable {
    public static func == (a: IDMap, b: IDMap) -> Bool {
        a.count == b.count && a.elementsEqual(b) { $0.id == $1.id && $0.value == $1.value }
    }
}

extension IDMap: Sendable where Value: Sendable {}
