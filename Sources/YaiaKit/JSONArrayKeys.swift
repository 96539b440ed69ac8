// Finding the objects of a big array by a key ("id"): each node of the
// array's tree keeps the range of the values its objects hold under the
// last key asked, once found, and a node is never changed while shared; a
// search then enters only the nodes whose range holds the value. Items given
// ascending ids, as a scene hands them out, fall in one path: finding one
// of 100,000 reads a few dozen ranges, not 100,000 objects, and a changed
// copy of the array finds its ranges again along its changed path only.

import Synchronization

/// The values some objects hold under a key, as far as a search needs.
enum JSONKeyRange: Sendable {
    /// No object holds the key.
    case none
    /// Whole numbers (as JSON Logic's `===` reads 2.0 too) from one to the other.
    case numbers(Int64, Int64)
    /// Strings, between these two in compareKeys' order.
    case strings(String, String)
    /// Anything else, or some of each: no value is ruled out.
    case mixed

    init(of value: JSON) {
        switch value {
        case .int(let i): self = .numbers(i, i)
        case .uint(let u): self = u <= UInt64(Int64.max) ? .numbers(Int64(u), Int64(u)) : .mixed
        case .double(let d):
            if let i = Int64(exactly: d) { self = .numbers(i, i) } else { self = .mixed }
        case .string(let s): self = .strings(s, s)
        default: self = .mixed
        }
    }

    func union(_ other: JSONKeyRange) -> JSONKeyRange {
        switch (self, other) {
        case (.none, _): return other
        case (_, .none): return self
        case let (.numbers(a, b), .numbers(c, d)): return .numbers(Swift.min(a, c), Swift.max(b, d))
        case let (.strings(a, b), .strings(c, d)):
            return .strings(compareKeys(a, c) <= 0 ? a : c, compareKeys(b, d) >= 0 ? b : d)
        default: return .mixed
        }
    }

    /// Whether an object here may hold a value `===` to `key`.
    func admits(_ key: JSON) -> Bool {
        switch self {
        case .none: return false
        case .mixed: return true
        case .numbers(let low, let high):
            switch JSONKeyRange(of: key) {
            case .numbers(let k, _): return low <= k && k <= high
            // A number that is no whole one (1.5, 2^64) equals no whole number.
            default: return false
            }
        case .strings(let low, let high):
            guard case .string(let s) = key else { return false }
            return compareKeys(low, s) <= 0 && compareKeys(s, high) <= 0
        }
    }
}

/// A node's range under one key.
struct JSONNodeKeys: Sendable {
    let field: String
    let range: JSONKeyRange
}

extension JSONArray {
    /// The positions of the objects whose `field` may be `===` to `key`, in
    /// order: a superset the caller checks. In a tree only the nodes whose
    /// range admits `key` are entered. `read` counts the elements whose keys
    /// were read.
    package func candidates(field: String, key: JSON, read: inout Int) -> [Int] {
        switch storage {
        case .flat(let a):
            var out: [Int] = []
            JSONArrayNode.candidates(in: a, field: field, key: key, offset: 0, read: &read, into: &out)
            return out
        case .tree(let root):
            var out: [Int] = []
            root.candidates(field: field, key: key, offset: 0, read: &read, into: &out)
            return out
        }
    }
}

extension JSONArrayNode {
    /// The range of the values under `field`, remembered for the last field asked.
    func keyRange(_ field: String, read: inout Int) -> JSONKeyRange {
        if let known = keys.withLock({ $0 }), known.field == field { return known.range }
        var range = JSONKeyRange.none
        if let edit, let edited = edit.keyRange(field) {
            read += edit.changes.count
            range = edited
        } else if isLeaf {
            read += elements.count
            for e in elements {
                guard case .object(let o) = e, let value = o[field] else { continue }
                range = range.union(JSONKeyRange(of: value))
            }
        } else {
            for c in children { range = range.union(c.keyRange(field, read: &read)) }
        }
        let found = JSONNodeKeys(field: field, range: range)
        keys.withLock { $0 = found }
        return range
    }

    func candidates(field: String, key: JSON, offset: Int, read: inout Int, into out: inout [Int]) {
        guard keyRange(field, read: &read).admits(key) else { return }
        if isLeaf {
            JSONArrayNode.candidates(in: elements, field: field, key: key, offset: offset, read: &read, into: &out)
            return
        }
        var start = offset
        for c in children {
            c.candidates(field: field, key: key, offset: start, read: &read, into: &out)
            start += c.count
        }
    }

    /// A leaf's objects whose value under `field` its range admits: reading
    /// their keys here spares the caller finding each element from the root.
    static func candidates(in elements: [JSON], field: String, key: JSON, offset: Int, read: inout Int, into out: inout [Int]) {
        read += elements.count
        for (k, e) in elements.enumerated() {
            guard case .object(let o) = e, let value = o[field], JSONKeyRange(of: value).admits(key) else { continue }
            out.append(offset + k)
        }
    }
}

// Counting the elements of a big array that pass a test, the count kept by
// each node of its tree for the tests last asked: a count after a change to
// one element tests that element's leaf again and adds up its path.

/// A count a node keeps: the test's owner and slot name the test.
struct JSONNodeCount: @unchecked Sendable {
    // Weak, not an identifier: an owner freed and another made at its
    // address must not read its counts; and not strong, or a rule that
    // counts a list it holds would keep both alive for good.
    weak var owner: AnyObject?
    let slot: Int
    let count: Int
}

extension JSONArray {
    /// How many elements pass the test `count` counts a run of contiguous
    /// elements with; in a tree, each node remembers its count for the
    /// test named by `owner` and `slot` (at most a few tests a node), so
    /// that nodes counted before are not counted again. The test must
    /// depend on the element only. `count` answers nil to stop (the caller
    /// keeps why), and the count is then nil. Not generic over an error
    /// type: a count visits a node per level, and each would look up the
    /// generic metadata of its result again.
    package func count(owner: AnyObject, slot: Int, _ count: (UnsafeBufferPointer<JSON>) -> Int?) -> Int? {
        switch storage {
        case .flat(let a): return a.withUnsafeBufferPointer(count)
        case .tree(let root): return root.count(owner: owner, slot: slot, count)
        }
    }
}

extension JSONArrayNode {
    static let countsKept = 4

    func count(owner: AnyObject, slot: Int, _ count: (UnsafeBufferPointer<JSON>) -> Int?) -> Int? {
        let known = counts.withLock { kept -> Int? in
            kept.removeAll { $0.owner == nil }
            return kept.first { $0.owner === owner && $0.slot == slot }?.count
        }
        if let known { return known }
        var n = 0
        if let edit, let before = edit.count(owner: owner, slot: slot) {
            guard let left = edit.left.withUnsafeBufferPointer(count), let came = edit.came.withUnsafeBufferPointer(count) else { return nil }
            n = before - left + came
        } else if isLeaf {
            guard let counted = elements.withUnsafeBufferPointer(count) else { return nil }
            n = counted
        } else {
            for c in children {
                guard let counted = c.count(owner: owner, slot: slot, count) else { return nil }
                n += counted
            }
        }
        let found = JSONNodeCount(owner: owner, slot: slot, count: n)
        counts.withLock { kept in
            if kept.count >= JSONArrayNode.countsKept { kept.removeFirst() }
            kept.append(found)
        }
        return n
    }
}
