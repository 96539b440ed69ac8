/// A FIFO of events that threads can wait on.
final class EventQueue: @unchecked Sendable {
    private let monitor = Monitor()
    private var items: [Event] = []
    private var head = 0
    private var closed = false
    /// At most this many events wait; beyond it the oldest is dropped, so a
    /// host that never receives holds a bounded amount.
    let capacity: Int
    /// Events dropped since the runtime started, and since the last pop.
    private(set) var dropped = 0
    private var droppedSincePop = 0
    /// Threads blocked in pop(), for tests that must know one is.
    private var blocked = 0

    init(capacity: Int = Int.max) {
        self.capacity = capacity
    }

    func push(_ event: Event) {
        monitor.lock.withLock {
            guard !closed else { return }
            if items.count - head >= capacity {
                head += 1
                dropped += 1
                droppedSincePop += 1
            }
            items.append(event)
            compact()
        }
        monitor.signal()
    }

    var receiversBlocked: Int { monitor.lock.withLock { blocked } }

    /// Events waiting, and events dropped so far.
    var counts: (queued: Int, dropped: Int) {
        monitor.lock.withLock { (items.count - head, dropped) }
    }

    /// Lets go of taken events now and then, so the array does not grow without bound.
    private func compact() {
        if head == items.count {
            // Usually one: popped, it costs less than removeAll's replacement of a range.
            while items.popLast() != nil {}
            head = 0
        } else if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }

    /// Wakes every waiter; later pops return nil at once.
    func close() {
        monitor.lock.withLock {
            closed = true
            items.removeAll()
            head = 0
        }
        monitor.broadcast()
    }

    /// The next event; waits up to `timeout` seconds (negative: no limit).
    func pop(timeout: Double) -> Event? {
        return monitor.lock.withLock {
            // The clock is read only when there is something to wait for.
            var deadline: Double?
            while head == items.count && !closed && timeout != 0 {
                let until = deadline ?? (timeout < 0 ? Double.infinity : monotonicNow() + timeout)
                deadline = until
                blocked += 1
                let woken = monitor.wait(until: until)
                blocked -= 1
                if !woken { break }
            }
            guard head < items.count else { return nil }
            var event = items[head]
            // The queue lets go of it: a text held only by the event is handed on as it is.
            items[head] = .json(.null)
            head += 1
            compact()
            // The first event after a drop says how many were lost.
            if droppedSincePop > 0, case .object(var o) = event.value {
                o["dropped"] = .int(Int64(droppedSincePop))
                event = .json(.object(o))
            }
            droppedSincePop = 0
            return event
        }
    }
}
