// A persistent B-tree of entries sorted by an Int64 key, counted so that an
// entry is found by its position as well as by its key. Nodes are never
// changed once built: a change copies the path to the entry (a few nodes of
// at most `CountedTree.width` entries), and every copy of a tree shares the
// rest. KeyedList keeps its order and its id index in two of them.

/// One node: a leaf holds entries, an inner node children. Immutable.
@usableFromInline
final class CountedTreeNode<Value: Sendable>: Sendable {
    /// A leaf's entry keys; an inner node's largest key of each child.
    @usableFromInline let keys: [Int64]
    /// A leaf's values, one per key; empty in an inner node.
    @usableFromInline let values: [Value]
    /// An inner node's children; empty in a leaf.
    @usableFromInline let children: [CountedTreeNode<Value>]
    /// Entries beneath.
    @usableFromInline let count: Int

    @inlinable
    init(keys: [Int64], values: [Value]) {
        self.keys = keys
        self.values = values
        children = []
        count = keys.count
    }

    @inlinable
    init(children: [CountedTreeNode<Value>]) {
        self.children = children
        keys = children.map { $0.keys.last ?? Int64.min }
        values = []
        count = children.reduce(0) { $0 + $1.count }
    }

    @inlinable
    var isLeaf: Bool { children.isEmpty }
}

@usableFromInline
struct CountedTree<Value: Sendable>: Sendable {
    /// Entries per leaf and children per inner node, at most.
    @inlinable
    static var width: Int { 32 }

    @usableFromInline var root: CountedTreeNode<Value>?

    @inlinable
    init() {}

    /// Entries already in key order, as keys and their values (as many),
    /// built bottom up in one pass: leaves are slices of the two arrays.
    @inlinable
    init(keys: [Int64], values: [Value]) {
        let count = Swift.min(keys.count, values.count)
        guard count > 0 else { return }
        var level: [CountedTreeNode<Value>] = []
        level.reserveCapacity(count / Self.width + 1)
        var start = 0
        while start < count {
            let end = Swift.min(start + Self.width, count)
            level.append(CountedTreeNode(keys: Array(keys[start..<end]), values: Array(values[start..<end])))
            start = end
        }
        while level.count > 1 {
            var next: [CountedTreeNode<Value>] = []
            var i = 0
            while i < level.count {
                let end = Swift.min(i + Self.width, level.count)
                next.append(CountedTreeNode(children: Array(level[i..<end])))
                i = end
            }
            level = next
        }
        root = level.first
    }

    @inlinable
    var count: Int { root?.count ?? 0 }

    /// Whether both are the very same tree: equal without a look inside.
    @inlinable
    func isIdentical(to other: CountedTree) -> Bool { root === other.root }

    /// The entry at `position` (0 ..< count).
    @inlinable
    func entry(at position: Int) -> (key: Int64, value: Value) {
        var node = root
        var i = position
        while let n = node {
            if n.isLeaf { return (n.keys[i], n.values[i]) }
            var c = 0
            while c < n.children.count - 1 && i >= n.children[c].count {
                i -= n.children[c].count
                c += 1
            }
            node = n.children[c]
        }
        preconditionFailure("position \(position) out of 0..<\(count)")
    }

    /// How many entries have a key below `key`: the position of the first
    /// entry with `key`, if there is one.
    @inlinable
    func rank(of key: Int64) -> Int {
        var node = root
        var below = 0
        while let n = node {
            var c = 0
            while c < n.keys.count && n.keys[c] < key {
                below += n.isLeaf ? 1 : n.children[c].count
                c += 1
            }
            if n.isLeaf || c == n.keys.count { return below }
            node = n.children[c]
        }
        return below
    }

    /// Inserts an entry at `position`; the caller keeps keys in order.
    @inlinable
    mutating func insert(key: Int64, value: Value, at position: Int) {
        guard let root else {
            self.root = CountedTreeNode(keys: [key], values: [value])
            return
        }
        let parts = Self.inserting(key, value, at: position, into: root)
        self.root = parts.count == 1 ? parts[0] : CountedTreeNode(children: parts)
    }

    /// Removes the entry at `position`.
    @inlinable
    mutating func remove(at position: Int) {
        guard let root else { return }
        var node = Self.removing(at: position, from: root)
        // A root with one child gives way to it.
        while let n = node, !n.isLeaf, n.children.count == 1 { node = n.children[0] }
        self.root = node
    }

    /// Replaces the value of the entry at `position`, its key kept.
    @inlinable
    mutating func setValue(_ value: Value, at position: Int) {
        guard let root else { return }
        self.root = Self.setting(value, at: position, in: root)
    }

    /// Calls `body` with every entry, in order; stops when it returns false.
    @inlinable
    func forEach(_ body: (Int64, Value) -> Bool) {
        guard let root else { return }
        _ = Self.walk(root, body)
    }

    @inlinable
    static func walk(_ node: CountedTreeNode<Value>, _ body: (Int64, Value) -> Bool) -> Bool {
        if node.isLeaf {
            for i in node.keys.indices where !body(node.keys[i], node.values[i]) { return false }
            return true
        }
        for child in node.children where !walk(child, body) { return false }
        return true
    }

    /// The child of inner node `n` that holds `position`, and the position within it.
    @inlinable
    static func child(of n: CountedTreeNode<Value>, at position: Int, inserting: Bool) -> (Int, Int) {
        var i = position
        var c = 0
        while c < n.children.count - 1 && (inserting ? i > n.children[c].count : i >= n.children[c].count) {
            i -= n.children[c].count
            c += 1
        }
        return (c, i)
    }

    @inlinable
    static func inserting(_ key: Int64, _ value: Value, at position: Int, into n: CountedTreeNode<Value>) -> [CountedTreeNode<Value>] {
        if n.isLeaf {
            var keys = n.keys
            var values = n.values
            keys.insert(key, at: position)
            values.insert(value, at: position)
            guard keys.count > width else { return [CountedTreeNode(keys: keys, values: values)] }
            let half = keys.count / 2
            return [CountedTreeNode(keys: Array(keys[..<half]), values: Array(values[..<half])),
                    CountedTreeNode(keys: Array(keys[half...]), values: Array(values[half...]))]
        }
        let (c, i) = child(of: n, at: position, inserting: true)
        var children = n.children
        children.replaceSubrange(c...c, with: inserting(key, value, at: i, into: n.children[c]))
        guard children.count > width else { return [CountedTreeNode(children: children)] }
        let half = children.count / 2
        return [CountedTreeNode(children: Array(children[..<half])), CountedTreeNode(children: Array(children[half...]))]
    }

    /// The node without the entry, or nil when nothing is left of it.
    @inlinable
    static func removing(at position: Int, from n: CountedTreeNode<Value>) -> CountedTreeNode<Value>? {
        if n.isLeaf {
            guard n.keys.count > 1 else { return nil }
            var keys = n.keys
            var values = n.values
            keys.remove(at: position)
            values.remove(at: position)
            return CountedTreeNode(keys: keys, values: values)
        }
        let (c, i) = child(of: n, at: position, inserting: false)
        var children = n.children
        if let changed = removing(at: i, from: n.children[c]) {
            children[c] = changed
            // A leaf grown small joins its neighbour when both fit in one.
            if changed.isLeaf, changed.count < width / 4, children.count > 1 {
                let other = c + 1 < children.count ? c + 1 : c - 1
                let (l, r) = (Swift.min(c, other), Swift.max(c, other))
                if children[l].isLeaf, children[r].isLeaf, children[l].count + children[r].count <= width {
                    let joined = CountedTreeNode(keys: children[l].keys + children[r].keys, values: children[l].values + children[r].values)
                    children.replaceSubrange(l...r, with: [joined])
                }
            }
        } else {
            children.remove(at: c)
        }
        return children.isEmpty ? nil : CountedTreeNode(children: children)
    }

    @inlinable
    static func setting(_ value: Value, at position: Int, in n: CountedTreeNode<Value>) -> CountedTreeNode<Value> {
        if n.isLeaf {
            var values = n.values
            values[position] = value
            return CountedTreeNode(keys: n.keys, values: values)
        }
        let (c, i) = child(of: n, at: position, inserting: false)
        var children = n.children
        children[c] = setting(value, at: i, in: n.children[c])
        return CountedTreeNode(children: children)
    }
}
