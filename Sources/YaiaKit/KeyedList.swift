/// An ordered list of elements with distinct ids, for the lists of a scene's
/// state: a copy costs nothing, and a change to one element (by id or by
/// position: replace, insert, remove, append) costs O(log n), however long
/// the list. Its JSON form is a plain array of its elements, the same as an
/// `[Element]`'s, so a state can move from an array to a KeyedList without
/// changing its snapshots.
///
/// It also remembers its last changes, so that the parts of a view model
/// derived from it (`rows`, `count(matching:)`, KeyedListDerived.swift) are
/// brought up to date by what changed rather than computed again.
///
/// An element whose id is already in the list replaces that one, where it
/// is: a KeyedList never holds two elements with one id.
//
// Its code is @inlinable down to CountedTree, as the standard library's
// collections are, so that a scene pack compiles it specialized for its own
// elements: run generic across the module boundary, each operation asked the
// Swift runtime for the metadata of the nodes and arrays it touched, most of
// the cost of a send. Those bodies are part of what a pack is compiled with:
// a pack built against another version of YaiaKit keeps its copy of them,
// so what the internals store, and how, changes only with a rebuild of the packs.
public struct KeyedList<Element: Identifiable & Sendable>: Sendable where Element.ID: Sendable {
    /// Where an id's element is in `order`, kept in `index` under the id's hash.
    @usableFromInline
    struct Slot: Sendable {
        @usableFromInline let id: Element.ID
        @usableFromInline var orderKey: Int64

        @inlinable
        init(id: Element.ID, orderKey: Int64) {
            self.id = id
            self.orderKey = orderKey
        }
    }

    /// The elements, under keys that ascend with their position.
    @usableFromInline var order = CountedTree<Element>()
    /// The ids, under their hash values (several ids may share one).
    @usableFromInline var index = CountedTree<Slot>()
    /// The last changes, for the parts derived from the list.
    @usableFromInline var history = KeyedListHistory<Element>()

    /// Order keys are spaced this far apart, so that an insertion between
    /// two neighbours finds a key between theirs (32 times in one place
    /// before the keys are spread again).
    @inlinable
    static var spacing: Int64 { 1 << 32 }

    @inlinable
    public init() {}

    /// The elements in order; a later element with the id of an earlier one replaces it.
    @inlinable
    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        var seen: [Element.ID: Int] = [:]
        var list: [Element] = []
        for element in elements {
            if let i = seen[element.id] { list[i] = element } else {
                seen[element.id] = list.count
                list.append(element)
            }
        }
        rebuild(list)
    }

    /// Builds both trees from `elements`, ids distinct, keys spread evenly.
    @inlinable
    mutating func rebuild(_ elements: [Element]) {
        _ = rebuild(elements, checking: false)
    }

    /// Builds both trees; with `checking`, answers the position of the
    /// first element whose id an earlier one has (nothing is built then).
    /// The ids are sorted by hash as concrete (hash, position) pairs, so
    /// that the sort costs what an `[Int64]`'s does, and the repeated ids
    /// are found in that sort (they share a hash) rather than with a Set of ids.
    @inlinable
    mutating func rebuild(_ elements: [Element], checking: Bool) -> Int? {
        var byHash: [(hash: Int64, at: Int)] = []
        byHash.reserveCapacity(elements.count)
        for (i, element) in elements.enumerated() { byHash.append((Self.hash(element.id), i)) }
        byHash.sort { $0.hash < $1.hash || ($0.hash == $1.hash && $0.at < $1.at) }
        if checking, let repeated = Self.firstRepeated(elements, byHash) { return repeated }
        var keys: [Int64] = []
        keys.reserveCapacity(elements.count)
        for i in elements.indices { keys.append(Int64(i) &* Self.spacing) }
        var hashes: [Int64] = []
        var slots: [Slot] = []
        hashes.reserveCapacity(elements.count)
        slots.reserveCapacity(elements.count)
        for (hash, at) in byHash {
            hashes.append(hash)
            slots.append(Slot(id: elements[at].id, orderKey: keys[at]))
        }
        order = CountedTree(keys: keys, values: elements)
        index = CountedTree(keys: hashes, values: slots)
        return nil
    }

    /// The least position whose id an earlier position has, or nil; `byHash`
    /// sorted, so equal ids are neighbours among those of one hash.
    @inlinable
    static func firstRepeated(_ elements: [Element], _ byHash: [(hash: Int64, at: Int)]) -> Int? {
        var first: Int?
        var start = 0
        while start < byHash.count {
            var end = start + 1
            while end < byHash.count && byHash[end].hash == byHash[start].hash { end += 1 }
            if end - start > 1 {
                for j in start + 1..<end {
                    let later = byHash[j].at
                    if (start..<j).contains(where: { elements[byHash[$0].at].id == elements[later].id }) {
                        first = Swift.min(first ?? later, later)
                    }
                }
            }
            start = end
        }
        return first
    }

    @inlinable
    static func hash(_ id: Element.ID) -> Int64 { Int64(id.hashValue) }

    // MARK: reading

    @inlinable
    public var count: Int { order.count }
    @inlinable
    public var isEmpty: Bool { order.count == 0 }

    /// The element with `id`, or nil. Setting an element replaces the one
    /// with its id where it is, or appends it; setting nil removes it.
    @inlinable
    public subscript(id id: Element.ID) -> Element? {
        get { position(of: id).map { order.entry(at: $0).value } }
        set {
            if let newValue { upsert(newValue, replacing: id) } else { remove(id: id) }
        }
    }

    @inlinable
    public func contains(id: Element.ID) -> Bool { slot(of: id) != nil }

    /// Where the element with `id` is, or nil.
    @inlinable
    public func position(of id: Element.ID) -> Int? {
        guard let (_, slot) = slot(of: id) else { return nil }
        return order.rank(of: slot.orderKey)
    }

    /// The slot of `id` and its position in `index`.
    @inlinable
    func slot(of id: Element.ID) -> (Int, Slot)? {
        let hash = Self.hash(id)
        var i = index.rank(of: hash)
        while i < index.count {
            let (key, slot) = index.entry(at: i)
            guard key == hash else { return nil }
            if slot.id == id { return (i, slot) }
            i += 1
        }
        return nil
    }

    /// The elements, as an array.
    @inlinable
    public var elements: [Element] { Array(self) }

    // MARK: changing

    /// Appends `element`, or replaces the element with its id where it is.
    @inlinable
    public mutating func append(_ element: Element) {
        insert(element, at: count)
    }

    /// Inserts `element` at `position` (0...count), or replaces the element
    /// with its id where it is.
    @inlinable
    public mutating func insert(_ element: Element, at position: Int) {
        if let at = self.position(of: element.id) { return replace(at: at, with: element) }
        precondition(position >= 0 && position <= count, "position \(position) out of 0...\(count)")
        let key = orderKey(forInsertingAt: position)
        order.insert(key: key, value: element, at: position)
        let hash = Self.hash(element.id)
        index.insert(key: hash, value: Slot(id: element.id, orderKey: key), at: index.rank(of: hash))
        history.record(.insert(at: position, element))
    }

    /// Replaces the element with `element`'s id; false when there is none.
    @inlinable
    @discardableResult
    public mutating func update(_ element: Element) -> Bool {
        guard let at = position(of: element.id) else { return false }
        replace(at: at, with: element)
        return true
    }

    /// Changes the element with `id` in place; nil when there is none. A
    /// change of its id moves the id (replacing any element that had the new one).
    @inlinable
    @discardableResult
    public mutating func modify<R>(id: Element.ID, _ body: (inout Element) throws -> R) rethrows -> R? {
        guard let at = position(of: id) else { return nil }
        var element = order.entry(at: at).value
        let result = try body(&element)
        if element.id == id {
            replace(at: at, with: element)
        } else {
            remove(at: at)
            if let other = position(of: element.id) { remove(at: other) }
            insert(element, at: Swift.min(at, count))
        }
        return result
    }

    /// Removes the element with `id`, and returns it; nil when there is none.
    @inlinable
    @discardableResult
    public mutating func remove(id: Element.ID) -> Element? {
        guard let at = position(of: id) else { return nil }
        return remove(at: at)
    }

    /// Removes the element at `position`, and returns it.
    @inlinable
    @discardableResult
    public mutating func remove(at position: Int) -> Element {
        precondition(position >= 0 && position < count, "position \(position) out of 0..<\(count)")
        let element = order.entry(at: position).value
        order.remove(at: position)
        if let (i, _) = slot(of: element.id) { index.remove(at: i) }
        history.record(.remove(at: position, element))
        return element
    }

    /// Removes every element that matches: a walk over the list, then
    /// O(log n) per element removed.
    @inlinable
    public mutating func removeAll(where shouldRemove: (Element) throws -> Bool) rethrows {
        var positions: [Int] = []
        for (i, element) in enumerated() where try shouldRemove(element) { positions.append(i) }
        for p in positions.reversed() { remove(at: p) }
    }

    /// Replaces the element at `position` (its id kept or not).
    @inlinable
    public mutating func replace(at position: Int, with element: Element) {
        let (key, old) = order.entry(at: position)
        if old.id != element.id {
            // The element's id elsewhere goes first: one element per id.
            if let other = self.position(of: element.id) {
                remove(at: other)
                return replace(at: other < position ? position - 1 : position, with: element)
            }
            if let (i, _) = slot(of: old.id) { index.remove(at: i) }
            let hash = Self.hash(element.id)
            index.insert(key: hash, value: Slot(id: element.id, orderKey: key), at: index.rank(of: hash))
        }
        order.setValue(element, at: position)
        history.record(.replace(at: position, old: old, new: element))
    }

    @inlinable
    mutating func upsert(_ element: Element, replacing id: Element.ID) {
        if element.id != id, let at = position(of: id) { return replace(at: at, with: element) }
        append(element)
    }

    /// A key between the neighbours of `position`, spreading the keys
    /// again (the same elements, no change recorded) when there is none.
    @inlinable
    mutating func orderKey(forInsertingAt position: Int) -> Int64 {
        if count == 0 { return 0 }
        let below = position > 0 ? order.entry(at: position - 1).key : nil
        let above = position < count ? order.entry(at: position).key : nil
        switch (below, above) {
        case let (b?, a?) where a - b >= 2: return b + (a - b) / 2
        case let (b?, nil): if case (let k, false) = b.addingReportingOverflow(Self.spacing) { return k }
        case let (nil, a?): if case (let k, false) = a.subtractingReportingOverflow(Self.spacing) { return k }
        default: break
        }
        let history = self.history
        rebuild(elements)
        self.history = history
        return orderKey(forInsertingAt: position)
    }
}

extension KeyedList: RandomAccessCollection {
    @inlinable
    public var startIndex: Int { 0 }
    @inlinable
    public var endIndex: Int { order.count }
    @inlinable
    public subscript(position: Int) -> Element { order.entry(at: position).value }

    @inlinable
    public func makeIterator() -> IndexingIterator<[Element]> {
        var all: [Element] = []
        all.reserveCapacity(count)
        order.forEach { _, element in
            all.append(element)
            return true
        }
        return all.makeIterator()
    }
}

extension KeyedList: ExpressibleByArrayLiteral {
    @inlinable
    public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension KeyedList: Equatable where Element: Equatable {
    @inlinable
    public static func == (a: KeyedList, b: KeyedList) -> Bool {
        if a.order.isIdentical(to: b.order) { return true }
        guard a.count == b.count else { return false }
        return a.elementsEqual(b)
    }
}

extension KeyedList: Encodable where Element: Encodable {
    /// A plain array of the elements, as `[Element]` encodes.
    @inlinable
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension KeyedList: Decodable where Element: Decodable {
    /// A plain array of elements, ids distinct: a repeated id is an error.
    @inlinable
    public init(from decoder: any Decoder) throws {
        let elements = try [Element](from: decoder)
        self.init()
        if let i = rebuild(elements, checking: true) {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath + [IndexKey(intValue: i)], debugDescription: "the id of element \(i) is the id of an earlier one"))
        }
    }
}

/// An array index as a coding key, for an error's location.
@usableFromInline
struct IndexKey: CodingKey {
    @usableFromInline var intValue: Int?
    @usableFromInline var stringValue: String { intValue.map(String.init) ?? "" }
    @usableFromInline
    init(intValue: Int) { self.intValue = intValue }
    @usableFromInline init?(stringValue: String) { nil }
}
