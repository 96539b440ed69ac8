import CYaia
import Synchronization
import YaiaCore

/// A service registered in a runtime: a C `yaia_service`, from a plugin or
/// from the host program.
public final class LiveService: @unchecked Sendable {
    public enum Origin: Sendable, Equatable {
        case plugin(String)
        case host
        /// Bound to a shared library's functions through libffi.
        case foreign(String)
    }

    public let name: String
    public let origin: Origin
    /// perform() may block: it runs on the worker pool.
    public let blocking: Bool
    // Raw C pointers: the ABI promises they stay valid while the runtime lives.
    let ctx: UnsafeMutableRawPointer?
    let performFunction: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void)?
    let cancelFunction: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void)?
    let releaseFunction: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    /// A service implemented in Swift, answering synchronously.
    let native: (any NativeService)?

    // release() waits for the callbacks under way: see retire(). One word
    // holds the callbacks under way and two flags, so that a callback's
    // entry and exit each take one atomic operation.
    private let callbacks = Atomic<Int>(0)
    private static let retiredFlag = 1 << 62
    private static let releasedFlag = 1 << 61

    /// Copies a C service struct, reading no field beyond its declared size.
    public init(_ pointer: UnsafePointer<yaia_service>?, origin: Origin) throws(YaiaError) {
        guard let pointer else { throw YaiaError(.badService, "the service is NULL") }
        let size = pointer.pointee.size
        // The original v1 struct ends where `flags` begins.
        let flagsOffset = MemoryLayout<yaia_service>.offset(of: \yaia_service.flags) ?? MemoryLayout<yaia_service>.size
        guard size >= flagsOffset else {
            throw YaiaError(.badService, "the service struct's size is \(size); ABI v1 needs at least \(flagsOffset)")
        }
        let s = pointer.pointee
        guard let rawName = s.name else { throw YaiaError(.badService, "the service has no name") }
        let name = String(cString: rawName)
        try LiveService.validate(name: name)
        guard let perform = s.perform else {
            throw YaiaError(.badService, "service \"\(name)\" has no perform callback")
        }
        let flags = size >= flagsOffset + MemoryLayout<UInt32>.size ? s.flags : 0
        self.name = name
        self.origin = origin
        self.blocking = flags & YAIA_SERVICE_BLOCKING != 0
        self.ctx = s.ctx
        self.performFunction = perform
        self.cancelFunction = s.cancel
        self.releaseFunction = s.release
        self.native = nil
    }

    init(name: String, origin: Origin, blocking: Bool, native: any NativeService) {
        self.name = name
        self.origin = origin
        self.blocking = blocking
        self.ctx = nil
        self.performFunction = nil
        self.cancelFunction = nil
        self.releaseFunction = nil
        self.native = native
    }

    /// Calls perform(); false when the service was retired meanwhile.
    /// `waiting`: the calling thread only waits for this call (a direct call).
    func perform(_ call: UInt, _ target: LiveCall, waiting: Bool) -> Bool {
        guard enter() else { return false }
        defer { leave() }
        let op = target.request.op, args = target.request.args
        if let native {
            deliver(call, native.perform(op: op, args: args))
            return true
        }
        guard let performFunction else { return false }
        // The host API reads the call's op and args (CallData.swift); `target`,
        // held until perform() returns, keeps what it hands out alive.
        let mayBlock = blocking || waiting
        let data = mayBlock ? target.attachBlocking() : nil
        data?.setPerformer(pthread_self())
        // Args are written on the stack unless they outgrow it: the usual
        // few fields need no heap.
        withUnsafeTemporaryAllocation(byteCount: 256, alignment: 1) { stack in
            var text = JSONWriter(borrowing: stack)
            text.write(args)
            op.withCString { op in performFunction(ctx, callPointer(call), op, text.cStringView()) }
        }
        data?.setPerformer(0)
        withExtendedLifetime(target) {}
        return true
    }

    func cancel(_ call: UInt) {
        guard let cancelFunction, enter() else { return }
        defer { leave() }
        cancelFunction(ctx, callPointer(call))
    }

    /// The runtime is done with the service: release() now, or when the last
    /// callback under way returns.
    func retire() {
        let now = callbacks.bitwiseOr(LiveService.retiredFlag, ordering: .acquiringAndReleasing).newValue
        releaseOnce(seen: now)
    }

    private func enter() -> Bool {
        var seen = callbacks.load(ordering: .relaxed)
        while seen & LiveService.retiredFlag == 0 {
            let (done, original) = callbacks.compareExchange(expected: seen, desired: seen + 1, ordering: .acquiringAndReleasing)
            if done { return true }
            seen = original
        }
        return false
    }

    private func leave() {
        releaseOnce(seen: callbacks.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue)
    }

    /// release(), by whichever thread first sees the service retired with
    /// no callback under way.
    private func releaseOnce(seen: Int) {
        guard seen == LiveService.retiredFlag else { return }
        let (won, _) = callbacks.compareExchange(expected: seen, desired: seen | LiveService.releasedFlag, ordering: .acquiringAndReleasing)
        if won { releaseFunction?(ctx) }
    }

    /// 1 to 64 bytes of [A-Za-z0-9_.-], for services and plugins alike.
    static func validate(name: String, what: String = "service", code: ErrorCode = .badService) throws(YaiaError) {
        let bytes = Array(name.utf8)
        let ok = !bytes.isEmpty && bytes.count <= 64 && bytes.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: "_") || c == UInt8(ascii: ".") || c == UInt8(ascii: "-")
        }
        guard ok else {
            throw YaiaError(code, "\(what) name \"\(name)\" must be 1 to 64 characters of A-Z a-z 0-9 _ . -")
        }
    }

    var json: JSON {
        var o: JSONObject = ["name": .string(name), "blocking": .bool(blocking)]
        switch origin {
        case .host: o["origin"] = "host"
        case .plugin(let p):
            o["origin"] = "plugin"
            o["plugin"] = .string(p)
        case .foreign(let library):
            o["origin"] = "foreign"
            o["library"] = .string(library)
        }
        return .object(o)
    }
}

/// A service written in Swift: performs one call and returns its outcome.
protocol NativeService: Sendable {
    func perform(op: String, args: JSON) -> Outcome
}

/// A running effect's call: which runtime and effect its completion
/// belongs to, the service performing it, the handle it was given and the
/// thread waiting for a direct call. `waiter` and `handle` are guarded by
/// the runtime's lock; whether it started or was cancelled is atomic, and
/// its data for the host API has a lock of its own.
final class LiveCall: @unchecked Sendable {
    let runtime: Runtime
    let effectID: Int64
    let service: LiveService
    /// What the service is asked to do.
    let request: Effect
    var waiter: Waiter?
    /// The call handle, once the service was asked to perform it.
    var handle: UInt?
    /// 1: started (perform() may be called), 2: cancelled. Atomic: every
    /// call starts, and a lock would cost more than the rest of it.
    private let flags = Atomic<UInt8>(0)
    private static let startedFlag: UInt8 = 1, cancelledFlag: UInt8 = 2
    /// What the host API reads of the call, made when first needed.
    private let data = Mutex<CallData?>(nil)

    init(runtime: Runtime, effectID: Int64, service: LiveService, request: Effect) {
        self.runtime = runtime
        self.effectID = effectID
        self.service = service
        self.request = request
    }

    /// Before perform(): false when the call was cancelled first.
    func start() -> Bool {
        var seen = flags.load(ordering: .acquiring)
        while seen & LiveCall.cancelledFlag == 0 {
            let (done, found) = flags.compareExchange(expected: seen, desired: seen | LiveCall.startedFlag, ordering: .acquiringAndReleasing)
            if done { return true }
            seen = found
        }
        return false
    }

    /// Whether the service has seen the call, so that it should hear of the cancel.
    func cancel() -> Bool {
        flags.bitwiseOr(LiveCall.cancelledFlag, ordering: .acquiringAndReleasing).oldValue & LiveCall.startedFlag != 0
    }

    /// What the host API reads of the call, made before a perform() that
    /// may block (it records its thread); otherwise when first asked for,
    /// since most services only complete.
    func attachBlocking() -> CallData {
        let made = CallData(op: request.op, args: request.args, mayBlock: true, limits: runtime.limits)
        data.withLock { $0 = made }
        return made
    }

    var callData: CallData? {
        data.withLock { slot in
            if let made = slot { return made }
            let made = CallData(op: request.op, args: request.args, mayBlock: false, limits: runtime.limits)
            slot = made
            return made
        }
    }
}

/// Calls in flight, process-wide: `yaia_call_complete` has no runtime argument.
/// Completing removes the call, so a second completion finds nothing (stale).
let calls = HandleTable<LiveCall>(tag: 0x5)

func callPointer(_ handle: UInt) -> OpaquePointer? { OpaquePointer(bitPattern: handle) }

/// Completes a call from C. Returns a YAIA_OK / YAIA_ERR_* code.
public func completeCall(_ call: OpaquePointer?, _ text: UnsafePointer<CChar>?, failed: Bool) -> Int32 {
    guard let call else { return YAIA_ERR_ARGUMENT }
    guard let text else { return YAIA_ERR_ARGUMENT }
    // Taken out first: of two completions racing, one reads its text.
    guard let target = calls.remove(UInt(bitPattern: call)) else {
        staleCompletion()
        return YAIA_ERR_STALE
    }
    let length = strlen(text)
    let parsed = text.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
        Result { () throws(YaiaError) in try target.runtime.limits.parse(UnsafeBufferPointer(start: bytes, count: length)) }
    }
    switch parsed {
    case .success(let value):
        target.runtime.finish(effectID: target.effectID, outcome: failed ? .failure(value) : .success(value))
        return YAIA_OK
    case .failure(let error):
        let limited = error.code == .limitExceeded
        let failure = limited ? error.json
            : ["code": .string(ErrorCode.badResult.rawValue), "message": .string("the service completed with \(error.message)")]
        target.runtime.finish(effectID: target.effectID, outcome: .failure(failure))
        Log.write(.warning, "runtime", "a service completed a call with \(error.message)")
        return limited ? YAIA_ERR_LIMIT : YAIA_ERR_JSON
    }
}

/// Ends a call with its outcome; false when it was ended already (stale).
@discardableResult
func deliver(_ call: UInt, _ outcome: Outcome) -> Bool {
    guard let target = calls.remove(call) else {
        staleCompletion()
        return false
    }
    target.runtime.finish(effectID: target.effectID, outcome: outcome)
    return true
}

private func staleCompletion() {
    Log.write(.info, "runtime", "a call was completed after it was completed or cancelled (or is unknown); ignored")
}

import Glibc
import YaiaKit
