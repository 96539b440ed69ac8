// The host API table handed to plugins (Include/yaia_plugin.h): what a
// plugin calls to register services, read a call's args, build its result
// and queue work, and the state those functions keep.
import CYaia
import Glibc
import Synchronization
import YaiaCore

// MARK: the table

/// The host API table: one, constant, for the life of the process.
nonisolated(unsafe) let hostAPI: UnsafeMutablePointer<yaia_host_api> = {
    let table = UnsafeMutablePointer<yaia_host_api>.allocate(capacity: 1)
    table.initialize(to: yaia_host_api(
        size: MemoryLayout<yaia_host_api>.size,
        abi_version: 1,
        host_version: yaiaVersionCString,
        add_service: { host, service in
            guard let s = pluginHosts.session(host) else { return YAIA_ERR_STATE }
            return s.stage { () throws(YaiaError) -> LiveService in try LiveService(service, origin: .plugin(s.pluginName)) }
        },
        call_complete: { call, text in completeCall(call, text, failed: false) },
        call_fail: { call, text in completeCall(call, text, failed: true) },
        log: { host, level, message in
            let level = Log.Level(rawValue: max(0, min(level, 3))) ?? .warning
            guard Log.enabled(level) else { return }
            let source = pluginHosts.pluginName(host) ?? "plugin"
            let text = message.map { String(cString: $0) } ?? ""
            Log.write(level, source, text)
        },
        set_error: { host, message in
            pluginHosts.session(host)?.setError(message.map { String(cString: $0) } ?? "unknown error")
        },
        add_functions: { host, service, functions, count, flags in
            guard let s = pluginHosts.session(host) else { return YAIA_ERR_STATE }
            return s.stage { () throws(YaiaError) -> LiveService in
                try typedService(name: service, functions: functions, count: count, flags: flags, plugin: s.pluginName)
            }
        },
        call_op: { call in readable(call)?.opText() },
        arg_type: { call, name in
            guard let data = readable(call), let value = data.arg(name) else { return YAIA_JSON_NONE }
            return jsonType(value)
        },
        arg_count: { call, name in
            switch readable(call)?.arg(name) {
            case .object(let o)?: return o.count
            case .array(let a)?: return a.count
            default: return 0
            }
        },
        arg_string: { call, name, out, length in
            readArg(call, name, out) { data, value in
                guard case .string(let s) = value else { return nil }
                let (text, count) = data.keep(s.utf8)
                length?.pointee = count
                return UnsafePointer(text)
            }
        },
        arg_int: { call, name, out in readArg(call, name, out) { _, value in value.int64Value } },
        arg_double: { call, name, out in readArg(call, name, out) { _, value in value.doubleValue } },
        arg_bool: { call, name, out in readArg(call, name, out) { _, value in value.boolValue.map { $0 ? 1 : 0 } } },
        arg_json: { call, name, out, length in
            readArg(call, name, out) { data, value in
                let (text, count) = data.keep(value.serializedBytes())
                length?.pointee = count
                return UnsafePointer(text)
            }
        },
        setup_config: { host in pluginHosts.configHandle(host) },
        result_string: { call, name, value, length in
            guard let value else { return YAIA_ERR_ARGUMENT }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self),
                                            count: length == YAIA_NTS ? strlen(value) : length)
            return buildResult(call) { (b) throws(BuildError) in
                guard let s = String(validating: bytes, as: UTF8.self) else {
                    throw BuildError.badResult("a result string that is not UTF-8")
                }
                try b.place(memberName(name), .string(s), cost: bytes.count + 2)
            }
        },
        result_int: { call, name, value in
            buildResult(call) { (b) throws(BuildError) in try b.place(memberName(name), .int(value), cost: 20) }
        },
        result_double: { call, name, value in
            buildResult(call) { (b) throws(BuildError) in
                guard value.isFinite else { throw BuildError.badResult("a result number that is \(value), which JSON cannot hold") }
                try b.place(memberName(name), .double(value), cost: 24)
            }
        },
        result_bool: { call, name, value in
            buildResult(call) { (b) throws(BuildError) in try b.place(memberName(name), .bool(value != 0), cost: 5) }
        },
        result_json: { call, name, text, length in
            guard let text else { return YAIA_ERR_ARGUMENT }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self),
                                            count: length == YAIA_NTS ? strlen(text) : length)
            return buildResult(call) { (b) throws(BuildError) in
                let limits = b.limits
                let value: JSON
                do throws(YaiaError) {
                    try limits.checkSize(b.bytes + bytes.count)
                    value = try JSONParser.parse(bytes, maxDepth: max(0, limits.depth - b.depth))
                } catch {
                    guard error.code == .limitExceeded else { throw BuildError.badResult("result_json was given \(error.message)") }
                    let limit = error.limit ?? "depth"
                    throw BuildError(code: YAIA_ERR_LIMIT, failure: YaiaError.limit(limit, limits[limit], "the result built").json)
                }
                try b.place(memberName(name), value, cost: bytes.count)
            }
        },
        result_open: { call, name, type in
            guard type == YAIA_JSON_OBJECT || type == YAIA_JSON_ARRAY else { return YAIA_ERR_ARGUMENT }
            return buildResult(call) { (b) throws(BuildError) in try b.open(memberName(name), array: type == YAIA_JSON_ARRAY) }
        },
        result_close: { call in buildResult(call) { (b) throws(BuildError) in try b.close() } },
        result_reset: { call in buildResult(call) { (b) throws(BuildError) in b = ResultBuilder(limits: b.limits) } },
        call_finish: { call in
            guard let call else { return YAIA_ERR_ARGUMENT }
            guard let data = calls.get(UInt(bitPattern: call))?.callData else { return YAIA_ERR_STALE }
            let result = data.withBuilder { $0.finish() }
            return deliver(UInt(bitPattern: call), .success(result)) ? YAIA_OK : YAIA_ERR_STALE
        },
        call_error: { call, code, message in
            guard let call else { return YAIA_ERR_ARGUMENT }
            guard let data = calls.get(UInt(bitPattern: call))?.callData else { return YAIA_ERR_STALE }
            let error = data.withBuilder { b in
                b.error(code: code.map { String(cString: $0) }, message: message.map { String(cString: $0) })
            }
            guard let error else { return YAIA_ERR_STATE }
            return deliver(UInt(bitPattern: call), .failure(error)) ? YAIA_OK : YAIA_ERR_STALE
        },
        queue_new: { queues.insert(LiveQueue()).flatMap { OpaquePointer(bitPattern: $0) } },
        queue_submit: { queue, call, job, ctx in
            guard let queue, let job else { return YAIA_ERR_ARGUMENT }
            guard let q = queues.get(UInt(bitPattern: queue)) else { return YAIA_ERR_STALE }
            var data: CallData?
            if let call {
                guard let d = calls.get(UInt(bitPattern: call))?.callData else { return YAIA_ERR_STALE }
                data = d
            }
            return q.submit(LiveQueue.Job(function: job, context: ctx, call: UInt(bitPattern: call), data: data))
        },
        queue_free: { queue in
            guard let queue else { return }
            queues.remove(UInt(bitPattern: queue))?.free()
        }
    ))
    return table
}()

// MARK: reading a call

/// What a C service's call holds for the plugin API: its op and args, the
/// C strings handed out for them (freed with it), the result being built,
/// and the thread running perform() when that thread may block.
final class CallData: Sendable {
    let op: String
    let args: JSON
    /// perform() runs where blocking costs no one: on a worker thread (a
    /// blocking service), or on the thread of a direct call that waits for it.
    let mayBlock: Bool
    private let state: Mutex<State>

    struct State {
        /// Addresses of the texts handed out; they live as long as the data.
        var texts: [UInt] = []
        var opText: UInt = 0
        var performer: pthread_t = 0
        var builder: ResultBuilder
    }

    init(op: String, args: JSON, mayBlock: Bool, limits: Limits) {
        self.op = op
        self.args = args
        self.mayBlock = mayBlock
        state = Mutex(State(builder: ResultBuilder(limits: limits)))
    }

    deinit {
        state.withLock { s in
            for text in s.texts { UnsafeMutableRawPointer(bitPattern: text)?.deallocate() }
        }
    }

    /// Member `name` of the args, or the args themselves for NULL.
    func arg(_ name: UnsafePointer<CChar>?) -> JSON? {
        guard let name else { return args }
        guard case .object(let o) = args else { return nil }
        return o[String(cString: name)]
    }

    /// A NUL-terminated copy of `bytes`, kept as long as the data; and its length.
    func keep(_ bytes: some Collection<UInt8>) -> (UnsafeMutablePointer<CChar>, Int) {
        let count = bytes.count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: count + 1, alignment: 1)
        let text = raw.bindMemory(to: UInt8.self, capacity: count + 1)
        _ = UnsafeMutableBufferPointer(start: text, count: count).initialize(fromContentsOf: bytes)
        text[count] = 0
        state.withLock { $0.texts.append(UInt(bitPattern: raw)) }
        return (raw.assumingMemoryBound(to: CChar.self), count)
    }

    func opText() -> UnsafePointer<CChar>? {
        if let made = state.withLock({ UnsafePointer<CChar>(bitPattern: $0.opText) }) { return made }
        let (text, _) = keep(op.utf8)
        return state.withLock { s in
            if s.opText == 0 { s.opText = UInt(bitPattern: text) }
            return UnsafePointer(bitPattern: s.opText)
        }
    }

    /// Marks the thread running perform() (0: none), for queue_submit's shortcut.
    func setPerformer(_ thread: pthread_t) { state.withLock { $0.performer = thread } }

    /// Whether a job may run inline: this thread runs perform() and may block.
    var mayBlockHere: Bool { mayBlock && state.withLock { $0.performer } == pthread_self() }

    func withBuilder<T: Sendable>(_ body: (inout ResultBuilder) -> T) -> T {
        state.withLock { body(&$0.builder) }
    }
}

/// The data the arg_* functions read: a call's, or a setup's config.
func readable(_ call: OpaquePointer?) -> CallData? {
    let handle = UInt(bitPattern: call)
    if handle & 0xF == PluginHosts.configTag { return pluginHosts.config(handle) }
    return calls.get(handle)?.callData
}

func jsonType(_ value: JSON) -> Int32 {
    switch value {
    case .null: YAIA_JSON_NULL
    case .bool: YAIA_JSON_BOOL
    case .int, .uint, .double: YAIA_JSON_NUMBER
    case .string: YAIA_JSON_STRING
    case .array: YAIA_JSON_ARRAY
    case .object: YAIA_JSON_OBJECT
    }
}

/// One typed read: `convert` answers the value, or nil for another type.
func readArg<T>(_ call: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<T>?,
             _ convert: (CallData, JSON) -> T?) -> Int32 {
    guard let out else { return YAIA_ERR_ARGUMENT }
    guard let data = readable(call) else { return YAIA_ERR_STALE }
    guard let value = data.arg(name) else { return YAIA_ERR_MISSING }
    guard let converted = convert(data, value) else { return YAIA_ERR_TYPE }
    out.pointee = converted
    return YAIA_OK
}

// MARK: building a result

/// A change a call's result refused: its code and, for bad JSON or a
/// limit, the error the call then fails with.
struct BuildError: Error {
    let code: Int32
    var failure: JSON? = nil

    static func badResult(_ message: String) -> BuildError {
        BuildError(code: YAIA_ERR_JSON, failure: ["code": .string(ErrorCode.badResult.rawValue), "message": .string(message)])
    }
}

/// A result under construction: the containers open, outermost first.
struct ResultBuilder {
    struct Frame {
        /// Its name in the enclosing object (nil in an array, and for the top).
        var name: String?
        var kind: Int32
        var object = JSONObject()
        var array: [JSON] = []
        /// The whole result, when the top was replaced by a value.
        var value: JSON = .null

        init(name: String? = nil, kind: Int32) {
            self.name = name
            self.kind = kind
        }

        init(value: JSON) {
            kind = YAIA_JSON_NONE
            self.value = value
        }

        consuming func json() -> JSON {
            switch kind {
            case YAIA_JSON_OBJECT: .object(object)
            case YAIA_JSON_ARRAY: .array(array)
            default: value
            }
        }
    }

    var stack = [Frame(kind: YAIA_JSON_OBJECT)]
    /// About the bytes of the result as JSON text, for the size limit.
    var bytes = 0
    var limits = Limits()

    var depth: Int { stack.count }

    /// Puts `value` where the next value goes (see yaia_plugin.h).
    mutating func place(_ name: String?, _ value: JSON, cost: Int) throws(BuildError) {
        let last = stack.count - 1
        switch stack[last].kind {
        case YAIA_JSON_ARRAY:
            try count(cost)
            stack[last].array.append(value)
        case YAIA_JSON_OBJECT:
            guard let name else {
                guard last == 0 else { throw BuildError(code: YAIA_ERR_ARGUMENT) }
                stack[0] = Frame(value: value)
                bytes = cost
                return
            }
            try count(cost + name.utf8.count + 4)
            stack[last].object[name] = value
        default:
            guard name == nil else { throw BuildError(code: YAIA_ERR_STATE) }
            stack[0] = Frame(value: value)
            bytes = cost
        }
    }

    private mutating func count(_ cost: Int) throws(BuildError) {
        bytes += cost
        guard bytes <= limits.requestBytes else {
            throw BuildError(code: YAIA_ERR_LIMIT, failure: YaiaError.limit("request_bytes", limits.requestBytes, "the result built").json)
        }
    }

    mutating func open(_ name: String?, array: Bool) throws(BuildError) {
        let kind = array ? YAIA_JSON_ARRAY : YAIA_JSON_OBJECT
        let last = stack.count - 1
        // At the top, a container without a name replaces the result.
        if last == 0 && name == nil && stack[0].kind != YAIA_JSON_ARRAY {
            stack[0] = Frame(kind: kind)
            bytes = 2
            return
        }
        switch stack[last].kind {
        case YAIA_JSON_OBJECT: guard name != nil else { throw BuildError(code: YAIA_ERR_ARGUMENT) }
        case YAIA_JSON_ARRAY: break
        default: throw BuildError(code: YAIA_ERR_STATE)
        }
        guard stack.count < limits.depth else {
            throw BuildError(code: YAIA_ERR_LIMIT, failure: YaiaError.limit("depth", limits.depth, "the result built").json)
        }
        try count(2 + (name?.utf8.count ?? 0))
        stack.append(Frame(name: stack[last].kind == YAIA_JSON_OBJECT ? name : nil, kind: kind))
    }

    mutating func close() throws(BuildError) {
        guard stack.count > 1 else { throw BuildError(code: YAIA_ERR_STATE) }
        let frame = stack.removeLast()
        let last = stack.count - 1
        if let name = frame.name {
            stack[last].object[name] = frame.json()
        } else {
            stack[last].array.append(frame.json())
        }
    }

    /// The result, everything closed; the builder starts afresh.
    mutating func finish() -> JSON {
        while stack.count > 1 { try? close() }
        defer { self = ResultBuilder(limits: limits) }
        return stack.removeLast().json()
    }

    /// The result as an error object with "code" and "message"; nil (and
    /// nothing changed) when it is no object.
    mutating func error(code: String?, message: String?) -> JSON? {
        guard stack[0].kind == YAIA_JSON_OBJECT else { return nil }
        while stack.count > 1 { try? close() }
        if let code { stack[0].object["code"] = .string(code) }
        if let message { stack[0].object["message"] = .string(message) }
        return finish()
    }

    init(limits: Limits = Limits()) { self.limits = limits }
}

func memberName(_ name: UnsafePointer<CChar>?) -> String? { name.map { String(cString: $0) } }

/// Runs one change of a call's result. A change that makes the result no
/// JSON, or passes a limit, fails the call.
func buildResult(_ call: OpaquePointer?, _ change: (inout ResultBuilder) throws(BuildError) -> Void) -> Int32 {
    guard let call else { return YAIA_ERR_ARGUMENT }
    let handle = UInt(bitPattern: call)
    guard let data = calls.get(handle)?.callData else { return YAIA_ERR_STALE }
    let refused = data.withBuilder { b -> BuildError? in
        do throws(BuildError) {
            try change(&b)
            return nil
        } catch {
            return error
        }
    }
    guard let refused else { return YAIA_OK }
    if let failure = refused.failure {
        guard deliver(handle, .failure(failure)) else { return YAIA_ERR_STALE }
        Log.write(.warning, "runtime", "a service's result was refused: \(failure["message"]?.stringValue ?? "")")
    }
    return refused.code
}

// MARK: queues

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
