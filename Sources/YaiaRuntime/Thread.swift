import Glibc

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
