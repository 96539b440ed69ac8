// The parser's stacks of pending values, in memory they manage themselves.

/// A stack of values in memory it manages itself: it starts in a buffer it
/// is lent and moves to the heap, doubling, when that fills. Values leave it
/// by moving, so nothing is retained or released on the way.
struct PendingStack<Element> {
    private var start: UnsafeMutablePointer<Element>
    private var capacity: Int
    private var onHeap: Bool
    private(set) var count = 0

    init(_ lent: UnsafeMutableBufferPointer<Element>) {
        if let base = lent.baseAddress, lent.count > 0 {
            start = base
            capacity = lent.count
            onHeap = false
        } else {
            capacity = 16
            start = .allocate(capacity: capacity)
            onHeap = true
        }
    }

    /// Value `i`, counted from the bottom; `i < count`.
    subscript(i: Int) -> Element { start[i] }

    /// Moves value `i` out, leaving its slot uninitialized: before the
    /// stack is used again, every such slot must lie above `abandon(to:)`.
    mutating func move(at i: Int) -> Element {
        (start + i).move()
    }

    /// Destroys value `i`, with the same duty as `move(at:)`.
    mutating func destroy(at i: Int) {
        (start + i).deinitialize(count: 1)
    }

    /// Forgets the slots from `newCount` up, whose values were all moved out or destroyed.
    mutating func abandon(to newCount: Int) {
        count = newCount
    }

    /// Destroys the values from `newCount` up.
    mutating func removeLast(to newCount: Int) {
        (start + newCount).deinitialize(count: count - newCount)
        count = newCount
    }

    @inline(__always)
    mutating func append(_ value: consuming Element) {
        if count == capacity { grow() }
        (start + count).initialize(to: value)
        count += 1
    }

    mutating func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: start, count: count)
        if onHeap { start.deallocate() }
        start = larger
        capacity *= 2
        onHeap = true
    }

    /// Moves the values from `base` up, in order, into an array of their count.
    @inline(__always)
    mutating func take(from base: Int) -> [Element] {
        // Not Array(unsafeUninitializedCapacity:), which looks up the
        // storage's type metadata at run time on every call.
        var taken: [Element] = []
        taken.reserveCapacity(count - base)
        for i in base..<count { taken.append((start + i).move()) }
        count = base
        return taken
    }

    /// Destroys what is left and gives back heap memory; the stack is then unusable.
    mutating func release() {
        start.deinitialize(count: count)
        count = 0
        if onHeap { start.deallocate() }
    }
}
