// The operations that turn one JSON value into another. The walk stops where
// both sides are the same storage: a list a change did not touch costs one
// comparison, so a diff costs what changed, not what the values hold.

extension JSON {
    /// Whether both are the same array or object storage, so equal without
    /// a look inside: one comparison, whatever their size. False for scalars.
    package func sharesStorage(with other: JSON) -> Bool {
        switch (self, other) {
        case let (.array(a), .array(b)): return a.sharesStorage(with: b)
        case let (.object(a), .object(b)): return a.sharesStorage(with: b)
        default: return false
        }
    }
}

package struct JSONDiffer {
    package private(set) var operations: [JSONPatch.Operation] = []
    /// Pairs of nodes compared so far: what the diff cost.
    package private(set) var visited = 0
    /// Deeper than this a changed value is replaced whole, so that the walk's
    /// recursion stays bounded whatever a value's nesting.
    private let maxDepth: Int

    package init(maxDepth: Int = JSONParser.defaultMaxDepth) {
        self.maxDepth = maxDepth
    }

    package mutating func diff(_ old: JSON, _ new: JSON, at path: String, depth: Int = 0) {
        visited += 1
        if old.sharesStorage(with: new) { return }
        switch (old, new) {
        case let (.object(a), .object(b)) where depth < maxDepth:
            diffObjects(a.members, b.members, at: path, depth: depth)
        case let (.array(a), .array(b)) where depth < maxDepth:
            let before = operations.count
            let whole: Int
            if case .flat(let x) = a.storage, case .flat(let y) = b.storage {
                whole = diffArrays(x, y, at: path, depth: depth)
            } else {
                whole = diffArrays(a, b, at: path, depth: depth)
            }
            // Changes scattered through a list (a filter's result narrowed,
            // say) pair elements that no longer match. An operation that
            // carries a whole element costs the element and its path (counted
            // twice); one inside an element costs less than the element
            // (counted once). Past the new list's length, the list itself is
            // the smaller patch, and the cheaper one to apply.
            let written = operations.count - before
            if written > 4 && written + whole > b.count {
                operations.removeSubrange(before...)
                operations.append(.replace(path: path, value: new))
            }
        default:
            if !same(old, new, depth: depth) { operations.append(.replace(path: path, value: new)) }
        }
    }

    /// Members are sorted by key on both sides: one merge walk.
    private mutating func diffObjects(_ a: [JSONObject.Member], _ b: [JSONObject.Member], at path: String, depth: Int) {
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            let order = i == a.count ? 1 : j == b.count ? -1 : compareKeys(a[i].key, b[j].key)
            if order < 0 {
                operations.append(.remove(path: JSONPointer.appending(path, a[i].key)))
                i += 1
            } else if order > 0 {
                operations.append(.add(path: JSONPointer.appending(path, b[j].key), value: b[j].value))
                j += 1
            } else {
                if !unchanged(a[i].value, b[j].value) {
                    diff(a[i].value, b[j].value, at: JSONPointer.appending(path, a[i].key), depth: depth + 1)
                }
                i += 1
                j += 1
            }
        }
    }

    /// The common prefix and suffix are skipped; the middle is diffed
    /// element by element, the longer side's rest added or removed. One
    /// changed element gives operations under its own path only.
    private mutating func diffArrays(_ a: [JSON], _ b: [JSON], at path: String, depth: Int) -> Int {
        var start = 0
        while start < a.count && start < b.count && same(a[start], b[start], depth: depth + 1) { start += 1 }
        var endA = a.count
        var endB = b.count
        while endA > start && endB > start && same(a[endA - 1], b[endB - 1], depth: depth + 1) {
            endA -= 1
            endB -= 1
        }
        return diffMiddle(a, b, start: start, ends: (endA, endB), at: path, depth: depth)
    }

    /// As above, for arrays one of which is a tree: the prefix and suffix
    /// walks step over the nodes both share, so an array and its copy with
    /// a few changes cost those changes, O(changed leaves x log n).
    private mutating func diffArrays(_ a: JSONArray, _ b: JSONArray, at path: String, depth: Int) -> Int {
        var skipped = 0
        let shorter = min(a.count, b.count)
        let start = JSONArrayWalk.commonPrefix(a, b, limit: shorter, skipped: &skipped) { x, y in
            same(x, y, depth: depth + 1)
        }
        let suffix = JSONArrayWalk.commonPrefix(a, b, limit: shorter - start, forward: false, skipped: &skipped) { x, y in
            same(x, y, depth: depth + 1)
        }
        visited += skipped
        return diffMiddle(a, b, start: start, ends: (a.count - suffix, b.count - suffix), at: path, depth: depth)
    }

    /// Diffs what lies between the common prefix and suffix. Returns how
    /// many operations it wrote that carry a whole element (or none: a
    /// remove) rather than a change inside one.
    private mutating func diffMiddle<C: RandomAccessCollection<JSON>>(
        _ a: C, _ b: C, start: Int, ends: (Int, Int), at path: String, depth: Int
    ) -> Int where C.Index == Int {
        let (endA, endB) = ends
        let paired = min(endA, endB) - start
        var whole = 0
        for k in start..<start + paired where !unchanged(a[k], b[k]) {
            switch (a[k], b[k]) {
            case (.array, .array), (.object, .object): break
            default: whole += 1
            }
            diff(a[k], b[k], at: JSONPointer.appending(path, k), depth: depth + 1)
        }
        // Only one side has a rest: inserted in order, or removed from the end down.
        for k in start + paired..<endB {
            operations.append(.add(path: JSONPointer.appending(path, k), value: b[k]))
        }
        for k in stride(from: endA - 1, through: start + paired, by: -1) {
            operations.append(.remove(path: JSONPointer.appending(path, k)))
        }
        return whole + (endB - start - paired) + (endA - start - paired)
    }

    /// Shared storage or equal scalars: settled without writing a path.
    private mutating func unchanged(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case (.array, .array), (.object, .object):
            guard a.sharesStorage(with: b) else { return false }
            visited += 1
            return true
        case (.array, _), (.object, _), (_, .array), (_, .object):
            return false
        default:
            visited += 1
            return sameScalar(a, b)
        }
    }

    /// Deep equality that trusts shared storage. Past the depth limit values
    /// count as different (and are replaced whole).
    private mutating func same(_ a: JSON, _ b: JSON, depth: Int) -> Bool {
        visited += 1
        switch (a, b) {
        case let (.array(x), .array(y)):
            if x.sharesStorage(with: y) { return true }
            guard x.count == y.count, depth < maxDepth else { return false }
            var skipped = 0
            let equal = x.sameElements(as: y, skipped: &skipped) { p, q in same(p, q, depth: depth + 1) }
            visited += skipped
            return equal
        case let (.object(x), .object(y)):
            if x.sharesStorage(with: y) { return true }
            guard x.count == y.count, depth < maxDepth else { return false }
            for (p, q) in zip(x.members, y.members) {
                if compareKeys(p.key, q.key) != 0 || !same(p.value, q.value, depth: depth + 1) { return false }
            }
            return true
        default:
            return sameScalar(a, b)
        }
    }
}

/// Equal and of one kind: `1` and `1.0` print differently, so a view model
/// that changes one into the other gets a `replace`.
private func sameScalar(_ a: JSON, _ b: JSON) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case let (.bool(x), .bool(y)): return x == y
    case let (.int(x), .int(y)): return x == y
    case let (.uint(x), .uint(y)): return x == y
    case let (.double(x), .double(y)): return x == y && x.sign == y.sign
    case let (.string(x), .string(y)): return compareKeys(x, y) == 0
    default: return false
    }
}
