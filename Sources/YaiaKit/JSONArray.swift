// A JSON array. View models hold lists of 100,000 items, and the previous
// state or view always holds the same list: with one flat buffer, changing
// one element would copy them all, and a diff would compare them all. Past
// one leaf the elements live in a persistent B+tree (JSONArrayNode): a change
// copies one path, O(log n), and the old and new values share the rest, so a
// diff skips it. Up to one leaf they stay a plain [JSON], which costs what
// an array always did.

/// A JSON array: a random-access, mutable sequence of JSON values whose
/// changes cost O(log n) however big it is and however shared.
public struct JSONArray: Sendable {
    enum Storage: Sendable {
        /// At most JSONArrayNode.leafMax elements.
        case flat([JSON])
        /// An inner node, more than JSONArrayNode.leafMax elements.
        case tree(JSONArrayNode)
    }

    // Two references rather than one enum of either: a JSON holding one is
    // copied and destroyed as simply as a string, not through a nested
    // enum's tag, which every JSON value's copy would pay for.
    private var flat: [JSON]
    /// Set (with `flat` empty) for a tree.
    private var root: JSONArrayNode?

    var storage: Storage {
        get {
            if let root { return .tree(root) }
            return .flat(flat)
        }
        set {
            switch newValue {
            case .flat(let a):
                root = nil
                flat = a
            case .tree(let node):
                flat = []
                root = node
            }
        }
    }

    public init() {
        flat = []
        root = nil
    }

    /// In O(n).
    public init(_ elements: [JSON]) {
        if elements.count <= JSONArrayNode.leafMax {
            flat = elements
            root = nil
        } else {
            flat = []
            root = JSONArrayNode.build(elements)
        }
    }

    public init<S: Sequence>(_ elements: S) where S.Element == JSON {
        self.init(Array(elements))
    }

    /// The elements as one Swift array, in O(n).
    public var elements: [JSON] {
        switch storage {
        case .flat(let a): return a
        case .tree(let root):
            var out: [JSON] = []
            out.reserveCapacity(root.count)
            root.appendAll(to: &out)
            return out
        }
    }

    /// Whether both are the same storage, so equal without a look inside.
    package func sharesStorage(with other: JSONArray) -> Bool {
        switch (storage, other.storage) {
        case let (.flat(a), .flat(b)): return a.sharesBuffer(with: b)
        case let (.tree(a), .tree(b)): return a === b
        default: return false
        }
    }

    /// Runs `body` on the elements, a run of contiguous ones at a time, in
    /// order, without copying them.
    package func forEachRun(_ body: (UnsafeBufferPointer<JSON>) -> Void) {
        switch storage {
        case .flat(let a): a.withUnsafeBufferPointer(body)
        case .tree(let root): root.forEachLeaf { run in body(run); return true }
        }
    }

    /// A tree back to a flat array once it fits one leaf, so that a tree
    /// always holds more: equal arrays of one size have one form.
    private mutating func settle(_ root: JSONArrayNode) {
        if root.count <= JSONArrayNode.leafMax {
            var all: [JSON] = []
            all.reserveCapacity(root.count)
            root.appendAll(to: &all)
            storage = .flat(all)
            return
        }
        var root = root
        while root.children.count == 1 { root = root.children[0] }
        storage = .tree(root)
    }
}

extension JSONArray: RandomAccessCollection, MutableCollection {
    public typealias Index = Int
    public typealias Indices = Range<Int>

    public var startIndex: Int { 0 }

    public var endIndex: Int { root?.count ?? flat.count }

    public var count: Int { endIndex }
    public var isEmpty: Bool { endIndex == 0 }

    public subscript(position: Int) -> JSON {
        get {
            if let root { return root.element(at: position) }
            return flat[position]
        }
        _modify {
            if var tree = root {
                // Out of `root` while it changes, so that this is not one more holder.
                root = nil
                let (leaf, i) = JSONArrayNode.uniqueLeaf(&tree, position)
                let old = leaf.elements[i]
                defer {
                    leaf.noteChange(old: old, new: leaf.elements[i])
                    root = tree
                }
                yield &leaf.elements[i]
            } else {
                yield &flat[position]
            }
        }
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    /// Walks the leaves in order: O(1) per element.
    public struct Iterator: IteratorProtocol {
        private var leaf: [JSON]
        private var position = 0
        private struct Frame {
            let node: JSONArrayNode
            var next: Int
        }

        /// Inner nodes above `leaf`, each with its next child to visit.
        private var stack: [Frame] = []

        init(_ array: JSONArray) {
            switch array.storage {
            case .flat(let a): leaf = a
            case .tree(let root):
                leaf = []
                stack.append(Frame(node: root, next: 0))
            }
        }

        public mutating func next() -> JSON? {
            while position == leaf.count {
                guard let top = stack.last else { return nil }
                if top.next == top.node.children.count {
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                var node = top.node.children[top.next]
                while !node.isLeaf {
                    stack.append(Frame(node: node, next: 1))
                    node = node.children[0]
                }
                leaf = node.elements
                position = 0
            }
            position += 1
            return leaf[position - 1]
        }
    }

    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<JSON>) throws -> R) rethrows -> R? {
        guard case .flat(let a) = storage else { return nil }
        return try a.withUnsafeBufferPointer(body)
    }
}

extension JSONArray: RangeReplaceableCollection {
    public mutating func reserveCapacity(_ n: Int) {
        if root == nil && n <= JSONArrayNode.leafMax { flat.reserveCapacity(n) }
    }

    /// In O(log n).
    public mutating func insert(_ newElement: JSON, at i: Int) {
        guard var tree = root else {
            flat.insert(newElement, at: i)
            if flat.count > JSONArrayNode.leafMax { storage = .tree(JSONArrayNode.build(flat)) }
            return
        }
        root = nil
        if let right = JSONArrayNode.insert(&tree, newElement, at: i) {
            tree = JSONArrayNode(children: [tree, right], height: tree.height + 1)
        }
        root = tree
    }

    /// In O(log n).
    public mutating func append(_ newElement: JSON) {
        if root == nil && flat.count < JSONArrayNode.leafMax {
            flat.append(newElement)
        } else {
            insert(newElement, at: endIndex)
        }
    }

    /// In O(log n).
    @discardableResult
    public mutating func remove(at i: Int) -> JSON {
        guard var tree = root else { return flat.remove(at: i) }
        root = nil
        let value = JSONArrayNode.remove(&tree, at: i)
        settle(tree)
        return value
    }

    @discardableResult
    public mutating func removeLast() -> JSON { remove(at: endIndex - 1) }

    public mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
        storage = .flat([])
    }

    public mutating func append<S: Sequence>(contentsOf newElements: S) where S.Element == JSON {
        replaceSubrange(endIndex..<endIndex, with: Array(newElements))
    }

    /// One element at a time, O(log n) each, when few change; the whole
    /// array rebuilt, O(n), when many do.
    public mutating func replaceSubrange<C: Collection>(_ range: Range<Int>, with newElements: C) where C.Element == JSON {
        if root == nil && flat.count - range.count + newElements.count <= JSONArrayNode.leafMax {
            flat.replaceSubrange(range, with: newElements)
            return
        }
        let changes = range.count + newElements.count
        if changes <= Swift.max(32, count / 16) {
            for _ in range { remove(at: range.lowerBound) }
            var i = range.lowerBound
            for e in newElements {
                insert(e, at: i)
                i += 1
            }
            return
        }
        var all = elements
        all.replaceSubrange(range, with: newElements)
        self = JSONArray(all)
    }
}

extension JSONArray: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSON...) { self.init(elements) }
}

extension JSONArray: Equatable {
    public static func == (a: JSONArray, b: JSONArray) -> Bool {
        if case .flat(let x) = a.storage, case .flat(let y) = b.storage { return x == y }
        return a.sameElements(as: b, by: ==)
    }
}

extension JSONArray: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for e in self { e.hash(into: &hasher) }
    }
}

extension JSONArray: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try [JSON](from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        for e in self { try c.encode(e) }
    }
}

extension JSONArray: CustomStringConvertible {
    public var description: String { JSON.array(self).serialized() }
}
