// Plugin queues: jobs that run one at a time, in order, on the plugins' worker pool.
import CYaia
import Glibc
import YaiaCore

/// Runs plugin queues' jobs: one pool for the process, since a queue (like
/// the plugin state it guards) outlives the runtimes whose calls it serves.
let pluginPool = WorkerPool(size: 8)

/// Queues by handle.
let queues = HandleTable<LiveQueue>(tag: 0xA)

/// Jobs that run one at a time, in order, on `pluginPool`.
final class LiveQueue: @unchecked Sendable {
    struct Job {
        let function: yaia_job
        let context: UnsafeMutableRawPointer?
        let call: UInt
        /// Keeps the call's memory for the job, even if the call ends meanwhile.
        let data: CallData?

        func run() {
            function(context, OpaquePointer(bitPattern: call))
            withExtendedLifetime(data) {}
        }
    }

    private let monitor = Monitor()
    private var jobs: [Job] = []
    private var head = 0
    /// A job is running or a drain is scheduled: jobs submitted now wait.
    private var busy = false
    /// The thread running a job now, 0 when none.
    private var runner: pthread_t = 0
    private var freed = false
    /// Jobs a drain runs before it lets other queues' jobs have the thread.
    private static let turn = 64

    func submit(_ job: Job) -> Int32 {
        let inline = job.data?.mayBlockHere ?? false
        let now = monitor.lock.withLock { () -> Int32? in
            guard !freed else { return YAIA_ERR_STALE }
            if busy {
                jobs.append(job)
                return YAIA_OK
            }
            if inline {
                busy = true
                runner = pthread_self()
                return nil
            }
            jobs.append(job)
            guard pluginPool.submit({ self.drain() }) else {
                jobs.removeLast()
                return YAIA_ERR_RESOURCE
            }
            busy = true
            return YAIA_OK
        }
        if let now { return now }
        // perform() runs on a worker thread, or on a thread that only waits
        // for this call: a hand-off would only add wake-ups, for this job
        // and for those submitted while it runs.
        job.run()
        drain()
        return YAIA_OK
    }

    /// Runs the jobs waiting, a turn's worth, then leaves the rest to another
    /// thread of the pool.
    private func drain() {
        var ran = 0
        while true {
            let job = monitor.lock.withLock { () -> Job? in
                runner = 0
                monitor.broadcast()
                guard head < jobs.count, !freed else {
                    jobs.removeAll()
                    head = 0
                    busy = false
                    return nil
                }
                if ran >= LiveQueue.turn && pluginPool.submit({ self.drain() }) { return nil }
                let job = jobs[head]
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                }
                runner = pthread_self()
                return job
            }
            guard let job else { return }
            job.run()
            ran += 1
        }
    }

    /// Drops the jobs waiting (failing their calls) and waits for the one
    /// running, unless this thread runs it.
    func free() {
        let dropped = monitor.lock.withLock { () -> [Job] in
            freed = true
            defer {
                jobs.removeAll()
                head = 0
            }
            return Array(jobs[head...])
        }
        for job in dropped where job.call != 0 {
            deliver(job.call, .failure(["code": "cancelled", "message": "the plugin freed its queue before the job ran"]))
        }
        monitor.lock.withLock {
            while runner != 0 && runner != pthread_self() { _ = monitor.wait(until: .infinity) }
        }
    }
}
