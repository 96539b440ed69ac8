// Walking two arrays side by side and stepping over what they share. A
// change to a JSONArray copies only its path, so an array and its changed
// copy hold the same nodes elsewhere, at the same distance from either end:
// where both walks reach one node at once, its elements are equal without a
// look, and the walk skips it whole. Comparing or diffing such arrays then
// costs what changed, O(changed leaves x log n), not their size.

/// A position in an array, walked from the front or from the back, that can
/// step over a whole node.
struct JSONArrayCursor {
    private let forward: Bool
    /// Inner nodes from the root down, each with the index of the child taken.
    private var path: [(node: JSONArrayNode, child: Int)] = []
    private var leaf: JSONArrayNode
    /// Elements of `leaf` passed, in the walk's direction.
    private var offset = 0
    private(set) var done = false

    init(_ array: JSONArray, forward: Bool) {
        self.forward = forward
        switch array.storage {
        case .flat(let a): leaf = JSONArrayNode(leaf: a)
        case .tree(let root): leaf = root
        }
        descend(from: leaf)
    }

    var current: JSON { leaf.elements[forward ? offset : leaf.elements.count - 1 - offset] }

    mutating func step() {
        offset += 1
        if offset == leaf.elements.count { advance(level: path.count) }
    }

    /// The node at `level` of the path: the leaf below the last inner node.
    private func node(_ level: Int) -> JSONArrayNode { level < path.count ? path[level].node : leaf }

    /// The highest level whose node begins, in the walk's direction, at the
    /// current element; nil within a leaf.
    private var firstStartingLevel: Int? {
        guard offset == 0 else { return nil }
        var level = path.count
        while level > 0 {
            let (parent, child) = path[level - 1]
            guard child == (forward ? 0 : parent.children.count - 1) else { break }
            level -= 1
        }
        return level
    }

    /// A node that begins at the current element of both cursors, of at
    /// most `limit` elements, the largest there is: its level in each and size.
    static func sharedNode(_ x: JSONArrayCursor, _ y: JSONArrayCursor, limit: Int) -> (Int, Int, Int)? {
        guard let xs = x.firstStartingLevel, let ys = y.firstStartingLevel else { return nil }
        for kx in xs...x.path.count {
            let n = x.node(kx)
            guard n.count <= limit else { continue }
            for ky in ys...y.path.count where y.node(ky) === n { return (kx, ky, n.count) }
        }
        return nil
    }

    /// Steps over the node at `level` (that begins at the current element).
    mutating func skip(level: Int) { advance(level: level) }

    /// Moves to the first leaf after the node at `level`.
    private mutating func advance(level: Int) {
        path.removeSubrange(level...)
        while let top = path.last {
            let (parent, child) = top
            let next = forward ? child + 1 : child - 1
            if next >= 0 && next < parent.children.count {
                path[path.count - 1].child = next
                descend(from: parent.children[next])
                return
            }
            path.removeLast()
        }
        done = true
    }

    private mutating func descend(from node: JSONArrayNode) {
        var node = node
        while !node.isLeaf {
            let child = forward ? 0 : node.children.count - 1
            path.append((node, child))
            node = node.children[child]
        }
        leaf = node
        offset = 0
        if node.elements.isEmpty { advance(level: path.count) }
    }
}

enum JSONArrayWalk {
    /// How many elements, up to `limit`, `a` and `b` have equal at their
    /// start (or, backward, at their end); nodes both share count as equal
    /// without `equal`. `skipped` counts the nodes stepped over.
    static func commonPrefix<E: Error>(
        _ a: JSONArray, _ b: JSONArray, limit: Int, forward: Bool = true,
        skipped: inout Int, equal: (JSON, JSON) throws(E) -> Bool
    ) throws(E) -> Int {
        var x = JSONArrayCursor(a, forward: forward)
        var y = JSONArrayCursor(b, forward: forward)
        var n = 0
        while n < limit && !x.done && !y.done {
            if let (kx, ky, size) = JSONArrayCursor.sharedNode(x, y, limit: limit - n) {
                x.skip(level: kx)
                y.skip(level: ky)
                n += size
                skipped += 1
                continue
            }
            if try !equal(x.current, y.current) { break }
            x.step()
            y.step()
            n += 1
        }
        return n
    }

}

extension JSONArray {
    /// Whether both have the same elements by `equal`, which sees none of
    /// the nodes both share: `skipped` counts those stepped over.
    package func sameElements<E: Error>(
        as other: JSONArray, skipped: inout Int, by equal: (JSON, JSON) throws(E) -> Bool
    ) throws(E) -> Bool {
        guard count == other.count else { return false }
        if sharesStorage(with: other) { return true }
        if case .flat(let x) = storage, case .flat(let y) = other.storage {
            for i in x.indices where try !equal(x[i], y[i]) { return false }
            return true
        }
        return try JSONArrayWalk.commonPrefix(self, other, limit: count, skipped: &skipped, equal: equal) == count
    }

    package func sameElements<E: Error>(as other: JSONArray, by equal: (JSON, JSON) throws(E) -> Bool) throws(E) -> Bool {
        var skipped = 0
        return try sameElements(as: other, skipped: &skipped, by: equal)
    }
}
