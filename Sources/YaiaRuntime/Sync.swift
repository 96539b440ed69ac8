import Glibc
import YaiaCore
import YaiaKit

/// A pthread mutex. A class so that its address is stable.
final class Lock: @unchecked Sendable {
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// An event: a JSON value, or its canonical text.
enum Event: Sendable {
    case json(JSON)
    case text(JSONText)

    var value: JSON {
        switch self {
        case .json(let json): return json
        case .text(let text): return (try? JSONParser.parse(text.bytes)) ?? .null
        }
    }

    /// The event's text, malloc'd and NUL-terminated, owned by the caller:
    /// a queued text's own memory when the event was its only holder.
    consuming func cString() -> UnsafeMutablePointer<CChar>? {
        switch consume self {
        case .json(let json):
            var writer = JSONWriter()
            writer.write(json)
            return writer.takeCString()
        case .text(var text): return JSONText.takeCString(&text)
        }
    }
}

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

/// Slots of a handle table: a handle's index has 28 bits.
private let handleCapacity = 1 << 28

private struct HandleSlot {
    var handle: UInt
    var object: AnyObject?
}

/// Objects handed to C as opaque handles: a handle is an id with a tag in its
/// low bits, never an address, so a freed, foreign or made-up one is simply
/// not found instead of being dereferenced.
///
/// A handle is a slot's index and the slot's generation, so a lookup is an
/// array read (host API functions take one per call): bits 0-3 the tag,
/// 4-31 the index, 32-63 the generation, which moves on each time the slot
/// is reused, so a stale handle stays stale for 2^32 reuses of its slot.
public final class HandleTable<Object: AnyObject & Sendable>: @unchecked Sendable {
    private let lock = Lock()
    /// Not generic: code outside this module then reads it without
    /// instantiating generic types on each lookup.
    private var slots: [HandleSlot] = []
    private var vacant: [Int] = []
    private let tag: UInt

    /// `tag` (1 to 15) tells kinds of handles apart.
    public init(tag: UInt) { self.tag = tag }

    /// A new handle for `object`; nil with 2^28 objects in the table.
    public func insert(_ object: Object) -> UInt? {
        lock.withLock {
            if let index = vacant.popLast() {
                let generation = (slots[index].handle >> 32 &+ 1) & 0xFFFF_FFFF
                let handle = generation << 32 | UInt(index) << 4 | tag
                slots[index] = HandleSlot(handle: handle, object: object)
                return handle
            }
            guard slots.count < handleCapacity else { return nil }
            let handle = UInt(slots.count) << 4 | tag
            slots.append(HandleSlot(handle: handle, object: object))
            return handle
        }
    }

    private func index(_ handle: UInt) -> Int? {
        guard handle & 0xF == tag else { return nil }
        let index = Int(handle >> 4 & UInt(handleCapacity - 1))
        return index < slots.count && slots[index].handle == handle ? index : nil
    }

    public func get(_ handle: UInt) -> Object? {
        lock.withLock {
            guard let i = index(handle), let object = slots[i].object else { return nil }
            return unsafeDowncast(object, to: Object.self)  // only Objects are stored
        }
    }

    @discardableResult
    public func remove(_ handle: UInt) -> Object? {
        lock.withLock {
            guard let index = index(handle), let object = slots[index].object else { return nil }
            slots[index].object = nil
            vacant.append(index)
            return unsafeDowncast(object, to: Object.self)
        }
    }
}

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

private final class ThreadBody: @unchecked Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// Starts a detached thread running `body`. Threads are detached, not joined,
/// so that a callback may free the runtime from any thread, this one included.
func startThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, { raw in
        if let raw { Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().body() }
        return nil
    }, box)
    guard status == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(box).release()
        return false
    }
    pthread_detach(thread)
    return true
}

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
