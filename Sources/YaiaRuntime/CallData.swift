// A plugin's call as the host API reads it: its op and args, the C strings handed out for them, its typed arguments.
import CYaia
import Glibc
import Synchronization
import YaiaCore
import YaiaKit

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
