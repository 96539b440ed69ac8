import Glibc

/// Seconds on the monotonic clock.
func monotonicNow() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

/// A mutex with a condition variable on the monotonic clock.
final class Monitor: @unchecked Sendable {
    let lock = Lock()
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    init() {
        cond = .allocate(capacity: 1)
        cond.initialize(to: pthread_cond_t())
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        cond.deallocate()
    }

    func signal() { pthread_cond_signal(cond) }
    func broadcast() { pthread_cond_broadcast(cond) }

    /// Waits (lock held) until signalled or `deadline` (monotonic seconds;
    /// infinity: no limit). Returns false on time-out.
    func wait(until deadline: Double) -> Bool {
        if deadline == .infinity {
            pthread_cond_wait(cond, lock.mutex)
            return true
        }
        let clamped = min(deadline, monotonicNow() + 1e9)
        var ts = timespec()
        ts.tv_sec = Int(clamped.rounded(.down))
        ts.tv_nsec = Int((clamped - clamped.rounded(.down)) * 1e9)
        return pthread_cond_timedwait(cond, lock.mutex, &ts) != ETIMEDOUT
    }
}
