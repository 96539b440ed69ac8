// How big a value is written out, as the logic budget counts it (a unit per
// value and per 8 bytes of string; docs/logic.md, "Budget"), and how deeply
// it nests. A rule's result is paid for by its size, and a list of 100,000
// items that a reduction or a view model passes on unchanged, or with one
// item changed, would be counted whole every time: a node of a big array's
// tree keeps its size once counted, and is never changed while shared, so
// counting a changed copy costs its changed path.

import Synchronization

/// A value's size in units and how many levels of arrays and objects it nests.
package struct JSONSize: Sendable, Equatable {
    package var units: Int
    package var nest: Int

    package init(units: Int, nest: Int) {
        self.units = units
        self.nest = nest
    }

    /// Sizes are summed without overflow: what does not fit is too big anyway.
    static func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : sum
    }

    /// Nodes keep a size in one word: units up to 2^46, nesting up to 2^16 - 1.
    static let maxUnits = 1 << 46
    static let maxNest = 0xFFFF

    var packed: UInt64? {
        guard units < JSONSize.maxUnits, nest < JSONSize.maxNest else { return nil }
        return 1 << 63 | UInt64(units) << 16 | UInt64(nest)
    }

    init?(packed: UInt64) {
        guard packed >> 63 == 1 else { return nil }
        self.init(units: Int(packed >> 16 & (1 << 47 - 1)), nest: Int(packed & 0xFFFF))
    }
}

/// A size counted within bounds: the size, or which bound it passed.
package enum JSONSizeCount: Sendable, Equatable {
    case fits(JSONSize)
    /// It nests more levels than allowed.
    case tooDeep
    /// It holds more units than allowed.
    case tooBig
}

extension JSON {
    /// The value's size, if it nests at most `levels` levels and holds at
    /// most `limit` units; counting stops at the first bound passed, so
    /// that a value shared many times over inside itself costs no more than
    /// `limit` to count. Trees of big arrays are counted once and remembered.
    package func size(levels: Int, limit: Int) -> JSONSizeCount {
        switch self {
        case .string(let s): return JSONSizeCount.bounded(JSONSize(units: 1 + s.utf8.count >> 3, nest: 0), limit)
        case .array(let a): return a.size(levels: levels, limit: limit)
        case .object(let o):
            guard levels > 0 else { return .tooDeep }
            var units = 1
            var nest = 0
            for m in o.members {
                units = JSONSize.add(units, 1 + m.key.utf8.count >> 3)
                guard units <= limit else { return .tooBig }
                let count = m.value.size(levels: levels - 1, limit: limit - units)
                guard case .fits(let s) = count else { return count }
                units += s.units
                nest = Swift.max(nest, s.nest)
            }
            return .fits(JSONSize(units: units, nest: nest + 1))
        default: return JSONSizeCount.bounded(JSONSize(units: 1, nest: 0), limit)
        }
    }
}

extension JSONSizeCount {
    static func bounded(_ s: JSONSize, _ limit: Int) -> JSONSizeCount { s.units <= limit ? .fits(s) : .tooBig }

    /// The size of a container of `inner` (one unit more, one level deeper).
    func wrapped(_ limit: Int) -> JSONSizeCount {
        guard case .fits(let s) = self else { return self }
        return JSONSizeCount.bounded(JSONSize(units: JSONSize.add(s.units, 1), nest: s.nest + 1), limit)
    }
}

extension JSONArray {
    /// Whether the elements are in a tree, whose size is remembered once counted.
    package var isTree: Bool { if case .tree = storage { return true } else { return false } }

    /// The array's size within `levels` and `limit` (JSON.size).
    package func size(levels: Int, limit: Int) -> JSONSizeCount {
        guard levels > 0 else { return .tooDeep }
        switch storage {
        case .flat(let a): return JSONArrayNode.size(of: a, levels: levels - 1, limit: limit - 1).wrapped(limit)
        case .tree(let root): return root.size(levels: levels - 1, limit: limit - 1).wrapped(limit)
        }
    }
}

extension JSONArrayNode {
    /// The size of the elements under this node (not the array's own unit
    /// and level), remembered once counted whole.
    func size(levels: Int, limit: Int) -> JSONSizeCount {
        if let known = JSONSize(packed: size.load(ordering: .relaxed)) {
            if known.nest > levels { return .tooDeep }
            return JSONSizeCount.bounded(known, limit)
        }
        if let edited = edit?.size(levels: levels), let packed = edited.packed {
            size.store(packed, ordering: .relaxed)
            if edited.nest > levels { return .tooDeep }
            return JSONSizeCount.bounded(edited, limit)
        }
        let found = isLeaf ? JSONArrayNode.size(of: elements, levels: levels, limit: limit)
            : JSONArrayNode.sum(children, limit: limit) { $0.size(levels: levels, limit: $1) }
        // Two threads may count one shared node at once: both store the same word.
        if case .fits(let s) = found, let packed = s.packed { size.store(packed, ordering: .relaxed) }
        return found
    }

    static func size(of elements: [JSON], levels: Int, limit: Int) -> JSONSizeCount {
        sum(elements, limit: limit) { $0.size(levels: levels, limit: $1) }
    }

    /// The sizes of `parts` added up, each counted within what the limit
    /// leaves (`count(part, left)`); the first that does not fit ends it.
    static func sum<Parts: Sequence>(_ parts: Parts, limit: Int, _ count: (Parts.Element, Int) -> JSONSizeCount) -> JSONSizeCount {
        var units = 0
        var nest = 0
        for part in parts {
            let counted = count(part, limit - units)
            guard case .fits(let s) = counted else { return counted }
            units += s.units
            nest = Swift.max(nest, s.nest)
        }
        return .fits(JSONSize(units: units, nest: nest))
    }
}
