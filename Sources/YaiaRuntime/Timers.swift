/// Wake-ups at deadlines on the system clock, on one thread of their own,
/// started on demand.
final class Timers: @unchecked Sendable {
    private let monitor = Monitor()
    /// Sorted by deadline, latest first, so the next one is popped from the end.
    private var entries: [(deadline: Double, id: Int64)] = []
    private var running = false
    private var stopped = false
    private let fire: @Sendable (Int64) -> Void

    init(fire: @escaping @Sendable (Int64) -> Void) { self.fire = fire }

    func schedule(_ id: Int64, at deadline: Double) {
        // nil: the thread sleeps on an earlier deadline; no wake-up needed.
        let start = monitor.lock.withLock { () -> Bool? in
            guard !stopped else { return nil }
            var low = 0
            var high = entries.count
            while low < high {
                let mid = (low + high) / 2
                if entries[mid].deadline > deadline { low = mid + 1 } else { high = mid }
            }
            entries.insert((deadline, id), at: low)
            guard low == entries.count - 1 else { return nil }
            if running { return false }
            running = true
            return true
        }
        guard let start else { return }
        if start && !startThread({ self.run() }) {
            Log.write(.error, "runtime", "could not start the timer thread; time-outs will not fire")
        }
        monitor.signal()
    }

    func stop() {
        monitor.lock.withLock {
            stopped = true
            entries.removeAll()
        }
        monitor.broadcast()
    }

    private func run() {
        while true {
            let due = monitor.lock.withLock { () -> Int64? in
                while !stopped {
                    guard let last = entries.last else {
                        _ = monitor.wait(until: .infinity)
                        continue
                    }
                    if last.deadline <= monotonicNow() {
                        entries.removeLast()
                        return last.id
                    }
                    _ = monitor.wait(until: last.deadline)
                }
                return nil
            }
            guard let due else { return }
            fire(due)
        }
    }
}
