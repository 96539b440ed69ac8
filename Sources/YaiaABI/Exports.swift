// The C ABI of Include/yaia.h. No logic lives here: C strings and handles are
// converted, the runtime is called, and every failure becomes an envelope.
import CYaia
import Glibc
import YaiaCore
import YaiaKit
import YaiaRuntime

/// Runtimes by handle: a yaia_runtime * is an id, never an address.
let runtimes = HandleTable<Runtime>(tag: 0x3)

func runtime(_ rt: OpaquePointer?) -> Runtime? {
    rt.flatMap { runtimes.get(UInt(bitPattern: $0)) }
}

/// `value`'s canonical text as a malloc'd C string (freed by yaia_free).
func cString(_ value: JSON) -> UnsafeMutablePointer<CChar>? {
    var writer = JSONWriter()
    writer.write(value)
    return writer.takeCString()
}

func envelope(_ code: ErrorCode, _ message: String) -> UnsafeMutablePointer<CChar>? {
    cString(YaiaError(code, message).envelope())
}

/// NULL is `null_argument`; anything else not in the table is `bad_handle`.
func handleFailure(_ rt: OpaquePointer?, tag: JSON? = nil) -> JSON {
    let error = rt == nil ? YaiaError(.nullArgument, "the runtime handle is NULL")
        : YaiaError(.badHandle, "the runtime handle is freed, foreign or made up")
    return error.envelope(tag: tag)
}

func handleError(_ rt: OpaquePointer?, tag: JSON? = nil) -> UnsafeMutablePointer<CChar>? {
    cString(handleFailure(rt, tag: tag))
}

/// The request's tag, for envelopes refused before the request is performed.
func tag(of request: UnsafeBufferPointer<UInt8>) -> JSON? {
    guard request.count <= Limits().requestBytes else { return nil }
    return (try? JSONParser.parse(request))?["tag"]
}

/// Borrows a C string as bytes.
func bytes<T>(_ text: UnsafePointer<CChar>, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
    let n = strlen(text)
    return text.withMemoryRebound(to: UInt8.self, capacity: n) { body(UnsafeBufferPointer(start: $0, count: n)) }
}

/// Parses a C string argument within the runtime's limits; nil text is `null_argument`.
func parse(_ text: UnsafePointer<CChar>?, _ what: String, _ runtime: Runtime) throws(YaiaError) -> JSON {
    guard let text else { throw YaiaError(.nullArgument, "\(what) is NULL") }
    return try bytes(text) { buffer in Result { () throws(YaiaError) in try runtime.limits.parse(buffer) } }.get()
}

/// Runs `body` on the runtime behind `rt`, turning errors into envelopes.
func withRuntime(_ rt: OpaquePointer?, _ body: (Runtime) throws(YaiaError) -> JSON) -> UnsafeMutablePointer<CChar>? {
    guard let runtime = runtime(rt) else { return handleError(rt) }
    do throws(YaiaError) {
        return cString(try body(runtime))
    } catch {
        return cString(error.envelope())
    }
}

@_cdecl("yaia_version")
public func yaia_version() -> UnsafePointer<CChar>? { yaiaVersionCString }

@_cdecl("yaia_abi_version")
public func yaia_abi_version() -> Int32 { YAIA_ABI_VERSION }

@_cdecl("yaia_free")
public func yaia_free(_ p: UnsafeMutableRawPointer?) { free(p) }

@_cdecl("yaia_runtime_new")
public func yaia_runtime_new(_ config: UnsafePointer<CChar>?, _ errorOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> OpaquePointer? {
    errorOut?.pointee = nil
    do throws(YaiaError) {
        // The config is the host's own: no request limits apply to it; its
        // "restore" holds a snapshot, as deep as the deepest limits allow.
        let json: JSON = try config.map { text throws(YaiaError) in
            try bytes(text) { buffer in Result { () throws(YaiaError) in try JSONParser.parse(buffer, maxDepth: Limits.maxTextDepth) } }.get()
        } ?? [:]
        let runtime = try Runtime(catalog: Catalog(), config: json)
        guard let handle = runtimes.insert(runtime) else {
            runtime.shutDown()
            throw YaiaError(.internal, "too many runtimes are open")
        }
        return OpaquePointer(bitPattern: handle)
    } catch {
        errorOut?.pointee = cString(error.envelope())
        return nil
    }
}

@_cdecl("yaia_runtime_free")
public func yaia_runtime_free(_ rt: OpaquePointer?) {
    guard let rt else { return }
    runtimes.remove(UInt(bitPattern: rt))?.shutDown()
}

@_cdecl("yaia_execute")
public func yaia_execute(_ rt: OpaquePointer?, _ request: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    guard let request else { return envelope(.nullArgument, "request_json is NULL") }
    return yaia_execute_n(rt, request, strlen(request))
}

@_cdecl("yaia_execute_n")
public func yaia_execute_n(_ rt: OpaquePointer?, _ request: UnsafePointer<CChar>?, _ length: Int) -> UnsafeMutablePointer<CChar>? {
    var writer = JSONWriter()
    execute(rt, request, length, into: &writer)
    return writer.takeCString()
}

/// The answer of yaia_execute_n, written into `writer`.
func execute(_ rt: OpaquePointer?, _ request: UnsafePointer<CChar>?, _ length: Int, into writer: inout JSONWriter) {
    guard let request else {
        guard length == 0 else { return writer.write(YaiaError(.nullArgument, "request is NULL").envelope()) }
        guard let runtime = runtime(rt) else { return writer.write(handleFailure(rt)) }
        return writer.write(runtime.execute(UnsafeBufferPointer(start: nil, count: 0)))
    }
    // A size_t beyond Int.max (a negative length passed through) is no buffer.
    guard length >= 0 else {
        guard let runtime = runtime(rt) else { return writer.write(handleFailure(rt)) }
        return writer.write(YaiaError.limit("request_bytes", runtime.limits.requestBytes, "a request of \(UInt(bitPattern: length)) bytes").envelope())
    }
    request.withMemoryRebound(to: UInt8.self, capacity: length) {
        let text = UnsafeBufferPointer(start: $0, count: length)
        guard let runtime = runtime(rt) else { return writer.write(handleFailure(rt, tag: tag(of: text))) }
        runtime.execute(text, into: &writer)
    }
}

/// The answers of yaia_execute_borrowed: the writers of one thread, one per
/// nesting level, each kept for the next call at its level. A call made
/// while another runs on the thread (from a service's perform(), a
/// notifier) writes one level down, so the outer answer stays whole. A
/// pthread key, since Swift has no thread-locals.
final class BorrowedAnswer {
    /// Beyond this, an answer's memory is given back before the next call.
    static let keptBytes = 1 << 20

    /// One level's writer: a class, so that a writer stays put while a
    /// nested call grows the list.
    final class Level { var writer = JSONWriter() }
    private let first = Level()
    /// The levels below the first, made when first reached.
    private var deeper: [Level] = []
    /// The calls under way on this thread.
    private var depth = 0

    static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let made = pthread_key_create(&key) { box in
            guard let box else { return }
            Unmanaged<BorrowedAnswer>.fromOpaque(box).release()
        }
        return made == 0 ? key : nil
    }()

    static var current: BorrowedAnswer? {
        guard let key else { return nil }
        if let box = pthread_getspecific(key) { return Unmanaged<BorrowedAnswer>.fromOpaque(box).takeUnretainedValue() }
        let answer = BorrowedAnswer()
        let box = Unmanaged.passRetained(answer)
        guard pthread_setspecific(key, box.toOpaque()) == 0 else {
            box.release()
            return nil
        }
        return answer
    }

    /// Runs `body` on the writer of this call's level, one below the calls
    /// under way on the thread.
    func answer(_ body: (inout JSONWriter) -> Void) -> UnsafePointer<CChar>? {
        let level = depth == 0 ? first : nested(depth)
        depth += 1
        defer { depth -= 1 }
        if level.writer.capacityInBytes > BorrowedAnswer.keptBytes { level.writer = JSONWriter() }
        level.writer.reset()
        body(&level.writer)
        return level.writer.cStringView()
    }

    private func nested(_ level: Int) -> Level {
        while deeper.count < level { deeper.append(Level()) }
        return deeper[level - 1]
    }
}

@_cdecl("yaia_execute_borrowed")
public func yaia_execute_borrowed(_ rt: OpaquePointer?, _ request: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let answers = BorrowedAnswer.current else { return nil }
    return answers.answer { writer in
        if let request {
            execute(rt, request, strlen(request), into: &writer)
        } else {
            writer.write(YaiaError(.nullArgument, "request_json is NULL").envelope())
        }
    }
}

@_cdecl("yaia_receive")
public func yaia_receive(_ rt: OpaquePointer?, _ timeout: Double) -> UnsafeMutablePointer<CChar>? {
    guard let runtime = runtime(rt) else { return handleError(rt) }
    return runtime.receiveText(timeout: timeout)
}

@_cdecl("yaia_set_notifier")
public func yaia_set_notifier(_ rt: OpaquePointer?, _ notify: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
                              _ ctx: UnsafeMutableRawPointer?) -> Int32 {
    guard rt != nil else { return YAIA_ERR_ARGUMENT }
    guard let runtime = runtime(rt) else { return YAIA_ERR_STALE }
    runtime.setNotifier(notify.map { Notifier(function: $0, context: ctx) })
    return YAIA_OK
}

@_cdecl("yaia_open")
public func yaia_open(_ rt: OpaquePointer?, _ scene: UnsafePointer<CChar>?, _ args: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    withRuntime(rt) { (runtime) throws(YaiaError) in
        guard let scene else { throw YaiaError(.nullArgument, "scene is NULL") }
        let json: JSON = args == nil ? [:] : try parse(args, "args_json", runtime)
        guard case .object = json else { throw YaiaError(.notAnObject, "args_json must be an object, not \(json.kindName)") }
        return try runtime.open(String(cString: scene), args: json)
    }
}

/// yaia_send's answer, into `writer` (empty): the update, or the error envelope alone.
func send(_ rt: OpaquePointer?, _ scene: Int64, _ action: UnsafePointer<CChar>?, into writer: inout JSONWriter) {
    guard let runtime = runtime(rt) else { return writer.write(handleFailure(rt)) }
    guard let action else { return writer.write(YaiaError(.nullArgument, "action_json is NULL").envelope()) }
    let result = bytes(action) { text in
        Result { () throws(YaiaError) in try runtime.send(scene: scene, actionText: text, into: &writer) }
    }
    if case .failure(let error) = result {
        writer.reset()
        writer.write(error.envelope())
    }
}

@_cdecl("yaia_send")
public func yaia_send(_ rt: OpaquePointer?, _ scene: Int64, _ action: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    var writer = JSONWriter()
    send(rt, scene, action, into: &writer)
    return writer.takeCString()
}

@_cdecl("yaia_send_borrowed")
public func yaia_send_borrowed(_ rt: OpaquePointer?, _ scene: Int64, _ action: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let answers = BorrowedAnswer.current else { return nil }
    return answers.answer { writer in send(rt, scene, action, into: &writer) }
}

@_cdecl("yaia_resolve")
public func yaia_resolve(_ rt: OpaquePointer?, _ effect: Int64, _ outcome: UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>? {
    withRuntime(rt) { (runtime) throws(YaiaError) in
        let json = try parse(outcome, "outcome_json", runtime)
        guard case .object(let o) = json else { throw YaiaError(.notAnObject, "outcome_json must be an object") }
        switch (o["result"], o["error"]) {
        case (let result?, nil): return try runtime.resolve(effect: effect, outcome: .success(result))
        case (nil, let error?): return try runtime.resolve(effect: effect, outcome: .failure(error))
        default: throw YaiaError(.badRequest, "outcome_json needs exactly one of \"result\" and \"error\"")
        }
    }
}

@_cdecl("yaia_add_service")
public func yaia_add_service(_ rt: OpaquePointer?, _ service: UnsafePointer<yaia_service>?) -> UnsafeMutablePointer<CChar>? {
    withRuntime(rt) { (runtime) throws(YaiaError) in
        let entry = try LiveService(service, origin: .host)
        try runtime.addService(entry)
        return ["ok": true, "service": .string(entry.name)]
    }
}

@_cdecl("yaia_call_complete")
public func yaia_call_complete(_ call: OpaquePointer?, _ result: UnsafePointer<CChar>?) -> Int32 {
    completeCall(call, result, failed: false)
}

@_cdecl("yaia_call_fail")
public func yaia_call_fail(_ call: OpaquePointer?, _ error: UnsafePointer<CChar>?) -> Int32 {
    completeCall(call, error, failed: true)
}
