// The nodes of a big JSONArray: a B+tree whose leaves hold the elements and
// whose inner nodes hold children with their element counts. A change copies
// the nodes on its path that others share (path copying), so a value that
// shares its tree with a previous one stays intact and the two keep sharing
// every other node.

import Synchronization

/// A leaf (elements) or an inner node (children), never both. Written only
/// while uniquely referenced, as Array's buffer is: hence Sendable.
final class JSONArrayNode: @unchecked Sendable {
    /// Elements under this node.
    var count: Int
    /// 0 for a leaf.
    let height: Int
    var elements: [JSON]
    var children: [JSONArrayNode]
    /// The elements' size once counted (JSONSize, packed), 0 until then;
    /// cleared when the node changes.
    let size = Atomic<UInt64>(0)
    /// The range of its objects' values under the last key searched
    /// (JSONArrayKeys), nil until then; cleared when the node changes.
    let keys = Mutex<JSONNodeKeys?>(nil)
    /// Counts of its elements that pass tests (JSONArrayKeys); emptied when the node changes.
    let counts = Mutex<[JSONNodeCount]>([])
    /// A leaf changed in place: what it knew before and what changed
    /// (JSONArrayEdit), so that its facts follow from those.
    var edit: JSONLeafEdit?

    static let leafMax = 32
    static let leafMin = 8
    static let innerMax = 16
    static let innerMin = 4

    init(leaf elements: [JSON]) {
        count = elements.count
        height = 0
        self.elements = elements
        children = []
    }

    init(children: [JSONArrayNode], height: Int) {
        var n = 0
        for c in children { n += c.count }
        count = n
        self.height = height
        elements = []
        self.children = children
    }

    private init(copying node: JSONArrayNode) {
        count = node.count
        height = node.height
        elements = node.elements
        children = node.children
    }

    var isLeaf: Bool { height == 0 }
    /// Elements in a leaf, children in an inner node.
    var width: Int { isLeaf ? elements.count : children.count }

    /// The child holding element `i`, and `i` within it. At `i == count`
    /// (the end) the last child, so that an append goes there.
    func locate(_ i: Int) -> (child: Int, offset: Int) {
        var rest = i
        var c = 0
        let last = children.count - 1
        while c < last {
            let n = children[c].count
            if rest < n { break }
            rest -= n
            c += 1
        }
        return (c, rest)
    }

    func element(at i: Int) -> JSON {
        var node = self
        var i = i
        while !node.isLeaf {
            let (c, j) = node.locate(i)
            node = node.children[c]
            i = j
        }
        return node.elements[i]
    }

    /// `node` itself when no one else holds it, else a copy that shares its
    /// elements or children.
    static func makeUnique(_ node: inout JSONArrayNode) {
        let edit = node.carriedEdit()
        if isKnownUniquelyReferenced(&node) {
            node.size.store(0, ordering: .relaxed)
            node.keys.withLock { $0 = nil }
            node.counts.withLock { $0.removeAll() }
        } else {
            node = JSONArrayNode(copying: node)
        }
        node.edit = edit
    }

    /// Makes the path to element `i` unique and answers its leaf and the
    /// element's index there, for a change in place.
    static func uniqueLeaf(_ root: inout JSONArrayNode, _ i: Int) -> (JSONArrayNode, Int) {
        makeUnique(&root)
        var node = root
        var i = i
        while !node.isLeaf {
            let (c, j) = node.locate(i)
            makeUnique(&node.children[c])
            node = node.children[c]
            i = j
        }
        return (node, i)
    }

    // MARK: - Insertion and removal

    /// Inserts `value` at `i`; answers the new right sibling when the node split.
    static func insert(_ node: inout JSONArrayNode, _ value: JSON, at i: Int) -> JSONArrayNode? {
        makeUnique(&node)
        node.count += 1
        if node.isLeaf {
            node.elements.insert(value, at: i)
            node.noteChange(old: nil, new: value)
        } else {
            let (c, j) = node.locate(i)
            if let right = insert(&node.children[c], value, at: j) { node.children.insert(right, at: c + 1) }
        }
        return node.width > (node.isLeaf ? leafMax : innerMax) ? node.splitHalf() : nil
    }

    /// Removes and answers element `i`; an underfull child is merged with a neighbour.
    static func remove(_ node: inout JSONArrayNode, at i: Int) -> JSON {
        makeUnique(&node)
        node.count -= 1
        if node.isLeaf {
            let value = node.elements.remove(at: i)
            node.noteChange(old: value, new: nil)
            return value
        }
        let (c, j) = node.locate(i)
        let value = remove(&node.children[c], at: j)
        if node.isUnderfull(c) { node.mergeChild(c) }
        return value
    }

    private func isUnderfull(_ c: Int) -> Bool {
        let child = children[c]
        return child.width < (child.isLeaf ? JSONArrayNode.leafMin : JSONArrayNode.innerMin)
    }

    /// Moves the upper half out into a new sibling, which it answers.
    private func splitHalf() -> JSONArrayNode {
        let half = width / 2
        edit = nil
        if isLeaf {
            let right = JSONArrayNode(leaf: Array(elements[half...]))
            elements.removeSubrange(half...)
            count -= right.count
            return right
        }
        let right = JSONArrayNode(children: Array(children[half...]), height: height)
        children.removeSubrange(half...)
        count -= right.count
        return right
    }

    /// Merges child `c` with a neighbour, then splits the result again if it
    /// is too wide: both end at least half full, or one node holds all.
    private func mergeChild(_ c: Int) {
        guard children.count > 1 else { return }
        let l = c > 0 ? c - 1 : c
        JSONArrayNode.makeUnique(&children[l])
        let left = children[l]
        left.edit = nil
        let right = children.remove(at: l + 1)
        left.count += right.count
        if left.isLeaf {
            left.elements.append(contentsOf: right.elements)
        } else {
            left.children.append(contentsOf: right.children)
        }
        if left.width > (left.isLeaf ? JSONArrayNode.leafMax : JSONArrayNode.innerMax) {
            children.insert(left.splitHalf(), at: l + 1)
        }
    }

    // MARK: - Building

    /// A tree of `elements`, more than a leaf holds: leaves and inner nodes
    /// filled evenly, in O(n).
    static func build(_ elements: [JSON]) -> JSONArrayNode {
        var level = chunks(elements.count, leafMax).map { JSONArrayNode(leaf: Array(elements[$0])) }
        var height = 0
        while level.count > 1 {
            height += 1
            let nodes = level
            level = chunks(nodes.count, innerMax).map { JSONArrayNode(children: Array(nodes[$0]), height: height) }
        }
        return level[0]
    }

    /// `n` items cut into the fewest runs of at most `max`, of sizes that
    /// differ by one at most.
    private static func chunks(_ n: Int, _ max: Int) -> [Range<Int>] {
        let parts = Swift.max(1, (n + max - 1) / max)
        let size = n / parts
        let longer = n % parts
        var runs: [Range<Int>] = []
        runs.reserveCapacity(parts)
        var start = 0
        for p in 0..<parts {
            let end = start + size + (p < longer ? 1 : 0)
            runs.append(start..<end)
            start = end
        }
        return runs
    }

    /// Every element, in order, into `out`.
    func appendAll(to out: inout [JSON]) {
        if isLeaf {
            out.append(contentsOf: elements)
        } else {
            for c in children { c.appendAll(to: &out) }
        }
    }

    /// Runs `body` on each leaf's elements in order, until it answers false.
    @discardableResult
    func forEachLeaf(_ body: (UnsafeBufferPointer<JSON>) throws -> Bool) rethrows -> Bool {
        if isLeaf { return try elements.withUnsafeBufferPointer(body) }
        for c in children where try !c.forEachLeaf(body) { return false }
        return true
    }
}
