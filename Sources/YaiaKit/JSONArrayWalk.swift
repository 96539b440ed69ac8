// Walking two arrays side by side and stepping over what they share. A
// change to a JSONArray copies only its path, so an array and its changed
// copy hold the same nodes elsewhere, at the same distance from either end:
// where both walks reach one node at once, its elements are equal without a
// look, and the walk skips it whole. Comparing or diffing such arrays then
// costs what changed, O(changed leaves x log n), not their size.

/// A node of an array's tree and a place in it, walked from the front or
/// from the back: it steps over the node whole, into its first child, or
/// (in a leaf) over some elements.
///
/// The cursor holds its root, and nodes are not changed while others hold
/// them: the references below the root need no counting (unowned(unsafe)),
/// which would cost a walk more than the rest of its work.
struct JSONArrayCursor {
    private struct Step {
        unowned(unsafe) let node: JSONArrayNode
        var child: Int
    }

    private let forward: Bool
    private let root: JSONArrayNode
    /// The current node's ancestors from the root down, each with the index
    /// of the child taken.
    private var path: ContiguousArray<Step> = []
    private(set) unowned(unsafe) var node: JSONArrayNode
    /// Elements of a leaf passed, in the walk's direction: the node begins
    /// at the current element when 0.
    private(set) var offset = 0
    private(set) var done = false

    init(_ array: JSONArray, forward: Bool) {
        self.forward = forward
        switch array.storage {
        case .flat(let a): root = JSONArrayNode(leaf: a)
        case .tree(let tree): root = tree
        }
        node = root
        path.reserveCapacity(root.height)
        done = root.count == 0
    }

    /// Elements of the current leaf not yet passed.
    var leafRest: Int { node.elements.count - offset }

    /// To the first child of an inner node, in the walk's direction.
    mutating func down() {
        let child = forward ? 0 : node.children.count - 1
        path.append(Step(node: node, child: child))
        node = node.children[child]
    }

    /// Past the current node, to the next one at its level or above.
    mutating func next() {
        offset = 0
        while let top = path.last {
            let child = forward ? top.child + 1 : top.child - 1
            if child >= 0 && child < top.node.children.count {
                path[path.count - 1].child = child
                node = top.node.children[child]
                return
            }
            path.removeLast()
        }
        done = true
    }

    mutating func step(by n: Int) {
        offset += n
        if offset == node.elements.count { next() }
    }

    /// How many of the next `n` elements of both cursors, which both have
    /// in their current leaf, are equal by `equal`: read in place, not copied.
    static func equalRun<E: Error>(
        _ x: JSONArrayCursor, _ y: JSONArrayCursor, _ n: Int, _ equal: (JSON, JSON) throws(E) -> Bool
    ) throws(E) -> Int {
        let result = x.node.elements.withUnsafeBufferPointer { p in
            y.node.elements.withUnsafeBufferPointer { q -> Result<Int, E> in
                for k in 0..<n {
                    let i = x.forward ? x.offset + k : p.count - 1 - x.offset - k
                    let j = y.forward ? y.offset + k : q.count - 1 - y.offset - k
                    do throws(E) {
                        if try !equal(p[i], q[j]) { return .success(k) }
                    } catch {
                        return .failure(error)
                    }
                }
                return .success(n)
            }
        }
        return try result.get()
    }
}

enum JSONArrayWalk {
    /// How many elements, up to `limit`, `a` and `b` have equal at their
    /// start (or, backward, at their end); nodes both share count as equal
    /// without `equal`. `skipped` counts the nodes stepped over.
    ///
    /// Both cursors stand at the same element. Where both nodes begin there
    /// and are one node, it is skipped; else the bigger one is entered (one
    /// both share, if any, lies below it), down to two leaves, whose
    /// elements are compared.
    static func commonPrefix<E: Error>(
        _ a: JSONArray, _ b: JSONArray, limit: Int, forward: Bool = true,
        skipped: inout Int, equal: (JSON, JSON) throws(E) -> Bool
    ) throws(E) -> Int {
        var x = JSONArrayCursor(a, forward: forward)
        var y = JSONArrayCursor(b, forward: forward)
        var n = 0
        while n < limit && !x.done && !y.done {
            let bothBegin = x.offset == 0 && y.offset == 0
            if bothBegin && x.node === y.node && x.node.count <= limit - n {
                n += x.node.count
                skipped += 1
                x.next()
                y.next()
            } else if !x.node.isLeaf && (!bothBegin || y.node.isLeaf || x.node.count >= y.node.count) {
                x.down()
            } else if !y.node.isLeaf {
                y.down()
            } else {
                let run = Swift.min(x.leafRest, y.leafRest, limit - n)
                let equalCount = try JSONArrayCursor.equalRun(x, y, run, equal)
                n += equalCount
                if equalCount < run { break }
                x.step(by: run)
                y.step(by: run)
            }
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
