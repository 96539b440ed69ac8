/// A bounded pool of threads for blocking service calls, started on demand.
final class WorkerPool: @unchecked Sendable {
    private let monitor = Monitor()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var threads = 0
    private var idle = 0
    private var stopped = false
    let size: Int

    init(size: Int) { self.size = size }

    /// Queues a job; false when the pool is stopped or no thread could start.
    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let spawn = monitor.lock.withLock { () -> Bool? in
            guard !stopped else { return nil }
            jobs.append(job)
            if idle > 0 || threads >= size { return false }
            threads += 1
            return true
        }
        guard let spawn else { return false }
        if spawn && !startThread({ self.run() }) {
            Log.write(.error, "runtime", "could not start a worker thread")
            let left = monitor.lock.withLock { () -> Int in
                threads -= 1
                return threads
            }
            if left == 0 { return false }
        }
        monitor.signal()
        return true
    }

    /// Lets the threads finish the jobs under way and exit; queued jobs are dropped.
    func stop() {
        monitor.lock.withLock {
            stopped = true
            jobs.removeAll()
            head = 0
        }
        monitor.broadcast()
    }

    private func run() {
        while let job = next() { job() }
    }

    private func next() -> (@Sendable () -> Void)? {
        monitor.lock.withLock {
            while head == jobs.count && !stopped {
                idle += 1
                _ = monitor.wait(until: .infinity)
                idle -= 1
            }
            guard !stopped else {
                threads -= 1
                return nil
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            return job
        }
    }
}
