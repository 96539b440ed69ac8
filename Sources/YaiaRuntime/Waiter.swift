import YaiaKit

/// One outcome, handed from a completing thread to a waiting one.
final class Waiter: @unchecked Sendable {
    private let monitor = Monitor()
    private var outcome: Outcome?
    private var expired = false

    func deliver(_ value: Outcome) {
        monitor.lock.withLock { outcome = value }
        monitor.broadcast()
    }

    /// The deadline passed: the waiting thread gives up.
    func expire() {
        monitor.lock.withLock { expired = true }
        monitor.broadcast()
    }

    /// The outcome, or nil once expired or when `deadline` (monotonic
    /// seconds; infinity: none) passed first.
    func wait(until deadline: Double) -> Outcome? {
        monitor.lock.withLock {
            while outcome == nil && !expired {
                if !monitor.wait(until: deadline) { break }
            }
            return outcome
        }
    }
}
