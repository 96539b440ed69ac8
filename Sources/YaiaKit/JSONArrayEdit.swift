// A leaf of a big array's tree changed in place forgets its size, counts
// and key range, and counting them again reads every element of the leaf.
// A toggle or an append in a list of 10,000 would pay that three times per
// send. The changed leaf keeps instead what its facts were before and which
// elements left and came; each fact then follows from its old value and the
// changed elements alone, or, where it cannot (a removal at the edge of a key
// range, a size whose deepest element left), is counted again as before.

/// What a leaf knew before its changes since, and those changes.
struct JSONLeafEdit: Sendable {
    /// JSONSize, packed; 0 when unknown.
    let size: UInt64
    let keys: JSONNodeKeys?
    let counts: [JSONNodeCount]
    /// Elements that left (`old`) and came (`new`), in the order of the
    /// changes; an insertion has no old element, a removal no new one.
    private(set) var changes: [(old: JSON?, new: JSON?)] = []

    /// Past this many changes the facts are counted again: an edit must not
    /// cost more than the leaf it stands for.
    static let most = 8

    init?(size: UInt64, keys: JSONNodeKeys?, counts: [JSONNodeCount]) {
        guard size != 0 || keys != nil || !counts.isEmpty else { return nil }
        self.size = size
        self.keys = keys
        self.counts = counts
    }

    /// Notes one more change; false when the edit has grown too long to keep.
    mutating func note(old: JSON?, new: JSON?) -> Bool {
        guard changes.count < JSONLeafEdit.most else { return false }
        changes.append((old, new))
        return true
    }

    /// The leaf's size now (as JSONArrayNode.size counts elements), or nil
    /// when it must be counted again.
    func size(levels: Int) -> JSONSize? {
        guard let before = JSONSize(packed: size) else { return nil }
        var units = before.units
        var deepestLeft = false
        var deepestCame = 0
        for change in changes {
            if let old = change.old {
                guard case .fits(let s) = old.size(levels: Int.max, limit: Int.max) else { return nil }
                units -= s.units
                deepestLeft = deepestLeft || s.nest >= before.nest
            }
            if let new = change.new {
                // A new element out of bounds is for the full count to report, as it always has.
                guard case .fits(let s) = new.size(levels: levels, limit: Int.max) else { return nil }
                units = JSONSize.add(units, s.units)
                deepestCame = Swift.max(deepestCame, s.nest)
            }
        }
        if deepestCame >= before.nest { return JSONSize(units: units, nest: deepestCame) }
        return deepestLeft ? nil : JSONSize(units: units, nest: before.nest)
    }

    /// The leaf's count for the test named by `owner` and `slot` before the
    /// changes, if it was known: the count now is that, less the count of
    /// `left`, plus that of `came`.
    func count(owner: AnyObject, slot: Int) -> Int? {
        counts.first { $0.owner === owner && $0.slot == slot }?.count
    }

    /// The elements that left the leaf, and those that came.
    var left: [JSON] { changes.compactMap(\.old) }
    var came: [JSON] { changes.compactMap(\.new) }

    /// The range of the values under `field` now, or nil when it must be
    /// found again: a value that left may have been an end of the range.
    func keyRange(_ field: String) -> JSONKeyRange? {
        guard let before = keys, before.field == field else { return nil }
        var range = before.range
        for change in changes {
            let old = change.old.flatMap { JSONLeafEdit.key(of: $0, field) }
            let new = change.new.flatMap { JSONLeafEdit.key(of: $0, field) }
            switch (old, new) {
            case (nil, nil): continue
            case (nil, let came?): range = range.union(JSONKeyRange(of: came))
            case let (left?, came?) where left == came: continue
            default: return nil
            }
        }
        return range
    }

    private static func key(of element: JSON, _ field: String) -> JSON? {
        guard case .object(let o) = element else { return nil }
        return o[field]
    }
}

extension JSONArrayNode {
    /// What a change to this leaf starts from: the facts it knows now, or,
    /// when it knows none, the edit that made it (its facts follow from that).
    func carriedEdit() -> JSONLeafEdit? {
        guard isLeaf else { return nil }
        let known = JSONLeafEdit(size: size.load(ordering: .relaxed), keys: keys.withLock { $0 },
                                 counts: counts.withLock { kept in kept.filter { $0.owner != nil } })
        return known ?? edit
    }

    /// Notes that `old` left this leaf and `new` came (either may be nil).
    func noteChange(old: JSON?, new: JSON?) {
        if edit?.note(old: old, new: new) == false { edit = nil }
    }
}
