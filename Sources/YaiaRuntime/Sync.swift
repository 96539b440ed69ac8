import Glibc
import YaiaCore

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

/// A FIFO of JSON events that threads can wait on.
final class EventQueue: @unchecked Sendable {
    private let lock = Lock()
    private let cond: UnsafeMutablePointer<pthread_cond_t>
    private var items: [JSON] = []
    private var head = 0
    private var closed = false

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

    func push(_ event: JSON) {
        lock.withLock {
            guard !closed else { return }
            items.append(event)
        }
        pthread_cond_signal(cond)
    }

    /// Wakes every waiter; later pops return nil at once.
    func close() {
        lock.withLock {
            closed = true
            items.removeAll()
            head = 0
        }
        pthread_cond_broadcast(cond)
    }

    var count: Int { lock.withLock { items.count - head } }

    /// The next event; waits up to `timeout` seconds (negative: no limit).
    func pop(timeout: Double) -> JSON? {
        lock.withLock {
            var deadline = timespec()
            let waits = timeout > 0 || timeout < 0
            if timeout > 0 {
                clock_gettime(CLOCK_MONOTONIC, &deadline)
                let whole = min(timeout, 1e9).rounded(.down)
                var nanos = Int(deadline.tv_nsec) + Int((min(timeout, 1e9) - whole) * 1e9)
                deadline.tv_sec += Int(whole) + nanos / 1_000_000_000
                nanos %= 1_000_000_000
                deadline.tv_nsec = nanos
            }
            while head == items.count && !closed && waits {
                if timeout < 0 {
                    pthread_cond_wait(cond, lock.mutex)
                } else if pthread_cond_timedwait(cond, lock.mutex, &deadline) == ETIMEDOUT {
                    break
                }
            }
            guard head < items.count else { return nil }
            let event = items[head]
            head += 1
            // Compact now and then so the array does not grow without bound.
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            return event
        }
    }
}

/// Objects handed to C as opaque handles: a handle is an id with a tag in its
/// low bits, never an address, so a freed, foreign or made-up one is simply
/// not found instead of being dereferenced.
public final class HandleTable<Object: AnyObject & Sendable>: @unchecked Sendable {
    private let lock = Lock()
    private var objects: [UInt: Object] = [:]
    private var next: UInt = 1
    private let tag: UInt

    /// `tag` (1 to 15) tells kinds of handles apart.
    public init(tag: UInt) { self.tag = tag }

    public func insert(_ object: Object) -> UInt {
        lock.withLock {
            let handle = next << 4 | tag
            next += 1
            objects[handle] = object
            return handle
        }
    }

    public func get(_ handle: UInt) -> Object? { lock.withLock { objects[handle] } }

    @discardableResult
    public func remove(_ handle: UInt) -> Object? { lock.withLock { objects.removeValue(forKey: handle) } }
}
