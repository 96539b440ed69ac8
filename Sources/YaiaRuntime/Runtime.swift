import CYaia
import Synchronization
import YaiaCore
import YaiaKit

/// The root object: scene catalog, the runtime's state, the service holder
/// and the event queue.
///
/// The runtime's state (scenes, flows, effects in flight, ids) is one value,
/// `state`, whose methods decide; the runtime applies each input to it under
/// `lock` and then executes the steps it returns, with no lock held. One
/// lock: nothing else is taken while it is held but the event queue's lock
/// (events are queued in order before it is let go) and, on the send path, a
/// journal's input lock is taken before it.
public final class Runtime: @unchecked Sendable {
    /// The scene types it opens; a request may register documents. Its lock
    /// is taken last (with or without `lock`), so it is a lock of its own.
    let catalogBox: Mutex<Catalog>
    public var catalog: Catalog { catalogBox.withLock { $0 } }
    /// The values the host set for scenes' `env` (config "env"); `now` is the clock's.
    public let env: JSONObject
    /// What requests may do beyond the ordinary ops (the config's "allow").
    public let grants: Grants
    public let limits: Limits
    /// Programs of the `logic` rules requests gave, by their text.
    let logicRules = LogicRuleCache()
    /// The time deadlines run on.
    public let clock: RuntimeClock
    let events: EventQueue
    let pool: WorkerPool
    var timerTable: Timers?

    let lock = Lock()
    /// Scenes, flows, effects and ids, as a value. Guarded by `lock`.
    var state: RuntimeState
    /// The calls of running effects (and their direct callers), by effect id.
    var liveEffects = IDMap<LiveCall>()
    /// The steps of the last input, emptied: `apply` reuses the list.
    var stepList: [RuntimeState.Step] = []
    var services = ServiceHolder()
    var plugins: [PluginInfo] = []
    private var isShutDown = false
    private var notifier: Notifier?
    var journal: Journal?
    /// Whether `journal` is set: read by every send without the lock.
    let journaling = Atomic<Bool>(false)
    /// A notifier was ever set: until then, queuing an event takes no lock for it.
    private let notifying = Atomic<Bool>(false)
    /// A scratch runtime re-running a journal: no deadlines, outcomes come from the journal.
    var replaying = false

    public static let defaultWorkers = 4

    public init(catalog: Catalog, workers: Int = Runtime.defaultWorkers, grants: Grants = Grants(), limits: Limits = Limits(),
                clock: RuntimeClock = .system, env: JSONObject = [:]) {
        self.catalogBox = Mutex(catalog)
        self.env = env
        self.grants = grants
        self.limits = limits
        self.clock = clock
        self.events = EventQueue(capacity: limits.events)
        self.pool = WorkerPool(size: workers)
        self.state = RuntimeState(sceneLimit: limits.scenes, maxID: Runtime.maxID)
    }

    public convenience init(catalog: SceneCatalog, workers: Int = Runtime.defaultWorkers, grants: Grants = Grants(), limits: Limits = Limits(),
                            clock: RuntimeClock = .system) {
        self.init(catalog: Catalog(catalog), workers: workers, grants: grants, limits: limits, clock: clock)
    }

    static let configKeys = ["scenes", "plugins", "workers", "bind", "restore", "journal", "inspect", "allow", "limits", "clock", "env", "view"]

    public convenience init(catalog: SceneCatalog, config: JSON) throws(YaiaError) {
        try self.init(catalog: Catalog(catalog), config: config)
    }

    /// A runtime configured by `{"scenes": [...], "plugins": [...], "workers": N, ...}`
    /// (docs/abi.md). On failure nothing of it is kept.
    public convenience init(catalog base: Catalog, config: JSON) throws(YaiaError) {
        guard case .object(let o) = config else {
            throw YaiaError(.notAnObject, "the runtime config must be an object, not \(config.kindName)")
        }
        for (key, _) in o where !Runtime.configKeys.contains(key) {
            throw YaiaError(.badConfig, "unknown config key \"\(key)\"" + Suggestion.hint(key, among: Runtime.configKeys)
                            + " (keys: " + Runtime.configKeys.joined(separator: ", ") + ")", at: JSONPointer.appending("", key))
        }
        let grants = try o["allow"].map { (v) throws(YaiaError) in try Grants(config: v, at: "/allow") } ?? Grants()
        let limits = try o["limits"].map { (v) throws(YaiaError) in try Limits(config: v, at: "/limits") } ?? Limits()
        let clock = try o["clock"].map { (v) throws(YaiaError) in try RuntimeClock(config: v, at: "/clock") } ?? .system
        var workers = Runtime.defaultWorkers
        if let w = o["workers"] {
            guard let n = w.int64Value, n >= 1, n <= 256 else {
                throw YaiaError(.badConfig, "\"workers\" must be a whole number from 1 to 256", at: "/workers")
            }
            workers = Int(n)
        }
        var env: JSONObject = [:]
        if let e = o["env"] {
            guard case .object(let values) = e else { throw YaiaError(.badConfig, "\"env\" must be an object of values for scenes", at: "/env") }
            guard values["now"] == nil else { throw YaiaError(.badConfig, "env.now is the runtime clock's; it cannot be set", at: "/env/now") }
            env = values
        }
        let view = try ViewMode.read(o["view"], at: "/view", code: .badConfig)
        var catalog = base
        if let list = o["scenes"] { try catalog.load(list, at: "/scenes", depth: limits.depth, steps: limits.logicSteps) }
        self.init(catalog: catalog, workers: workers, grants: grants, limits: limits, clock: clock, env: env)
        if let view { state.viewMode = view }
        do throws(YaiaError) {
            if let list = o["plugins"] {
                guard case .array(let items) = list else {
                    throw YaiaError(.badConfig, "\"plugins\" must be an array", at: "/plugins")
                }
                for (i, item) in items.enumerated() {
                    let at = JSONPointer.appending("/plugins", i)
                    switch item {
                    case .string(let path):
                        try loadPlugin(path: path, config: [:])
                    case .object(let p):
                        guard case .string(let path)? = p["path"] else {
                            throw YaiaError(.badConfig, "a plugin entry needs a \"path\" string", at: at + "/path")
                        }
                        let config = p["config"] ?? [:]
                        guard case .object = config else {
                            throw YaiaError(.badConfig, "a plugin's \"config\" must be an object", at: at + "/config")
                        }
                        try loadPlugin(path: path, config: config)
                    default:
                        throw YaiaError(.badConfig, "a plugin entry is a path or {\"path\", \"config\"}", at: at)
                    }
                }
            }
            if let list = o["bind"] {
                guard case .array(let items) = list else {
                    throw YaiaError(.badConfig, "\"bind\" must be an array of bindings", at: "/bind")
                }
                for (i, item) in items.enumerated() {
                    let at = JSONPointer.appending("/bind", i)
                    guard case .object(let binding) = item else {
                        throw YaiaError(.badConfig, "a binding must be an object", at: at)
                    }
                    try bind(binding, at: at)
                }
            }
            if let i = o["inspect"] {
                guard case .bool(let on) = i else { throw YaiaError(.badConfig, "\"inspect\" must be a boolean", at: "/inspect") }
                setInspecting(on)
            }
            // Last, so that reissued effects find their services.
            if let image = o["restore"] {
                do throws(YaiaError) {
                    _ = try restore(image)
                } catch {
                    // The snapshot's own code (bad_snapshot, ...), as a restore request gives it.
                    var located = error
                    located.at = "/restore" + (error.at ?? "")
                    throw located
                }
            }
            if let j = o["journal"] {
                guard case .string(let path) = j else { throw YaiaError(.badConfig, "\"journal\" must be a file path", at: "/journal") }
                _ = try startJournal(path: path)
            }
        } catch {
            shutDown()
            throw error
        }
    }

    // MARK: events and lifetime

    /// The next queued event, waiting up to `timeout` seconds (negative: no limit).
    public func receive(timeout: Double) -> JSON? {
        events.pop(timeout: timeout.isNaN ? 0 : timeout)?.value
    }

    /// `receive`, as its text, malloc'd and NUL-terminated, owned by the
    /// caller; nil when none came (or no memory was left for it).
    public func receiveText(timeout: Double) -> UnsafeMutablePointer<CChar>? {
        events.pop(timeout: timeout.isNaN ? 0 : timeout)?.cString()
    }

    /// Threads blocked in receive() now.
    var receiversBlocked: Int { events.receiversBlocked }

    public func setInspecting(_ on: Bool) {
        lock.withLock { state.inspecting = on }
    }

    /// Called after each queued event, outside every lock.
    public func setNotifier(_ notifier: Notifier?) {
        if notifier != nil { notifying.store(true, ordering: .relaxed) }
        lock.withLock { self.notifier = notifier }
    }

    func notify() {
        guard notifying.load(ordering: .relaxed) else { return }
        lock.withLock { notifier }?.call()
    }

    /// Closes every scene, cancels every call, retires the services (each is
    /// released once its callbacks under way return) and wakes receivers.
    public func shutDown() {
        let (dropped, retired) = lock.withLock { () -> ([LiveCall], [LiveService]) in
            guard !isShutDown else { return ([], []) }
            isShutDown = true
            notifier = nil
            state = RuntimeState(sceneLimit: limits.scenes, maxID: Runtime.maxID)
            defer { liveEffects.removeAll() }
            return (Array(liveEffects.values), services.removeAll())
        }
        pool.stop()
        lock.withLock { timerTable }?.stop()
        cancelCalls(dropped)
        for call in dropped {
            call.waiter?.deliver(.failure(["code": "cancelled", "message": "the runtime was freed"]))
        }
        for s in retired { s.retire() }
        events.close()
        _ = stopJournal()
    }

    func checkRunning() throws(YaiaError) {
        if isShutDown { throw YaiaError(.badHandle, "the runtime has been freed") }
    }

    /// The scene type `name`, or `unknown_scene` with the nearest name.
    func sceneType(_ name: String, at pointer: String? = nil) throws(YaiaError) -> CatalogEntry {
        try catalogBox.withLock { (catalog) throws(YaiaError) -> CatalogEntry in
            guard let type = catalog[name] else {
                throw YaiaError(.unknownScene, "no scene type named \"\(name)\"" + Suggestion.hint(name, among: catalog.names), at: pointer)
            }
            return type
        }
    }

    /// The values scenes read as `env`: the host's, and `now` on the clock.
    func sceneValues() -> JSON {
        var values = env
        values["now"] = .double(clock.now)
        return .object(values)
    }

    /// A new scene of type `name`, from `args`, or restored from `state`.
    func makeScene(_ name: String, args: JSON = [:], state: JSON? = nil, at pointer: String? = nil) throws(YaiaError) -> any LiveScene {
        let type = try sceneType(name, at: pointer)
        let env = type.document == nil ? JSON.null : sceneValues()
        if let state { return try type.restore(state: state, env: env) }
        return try type.open(args: args, env: env)
    }

    /// Adds a scene document's type (the `register` request): checked whole,
    /// its routes against the scene types there are then. Registering the
    /// same document again changes nothing. Journaled, so a replay has it.
    public func register(document: JSON) throws(YaiaError) -> JSON {
        try input({ (_) throws(YaiaError) -> JSON in
            var added: [DocumentScene] = []
            let name = try catalogBox.withLock { (catalog) throws(YaiaError) -> String in try catalog.register(document, depth: limits.depth, steps: limits.logicSteps, added: &added) }
            return ["ok": true, "scene": .string(name)]
        }, record: { _ in (.register(document: document), nil) })
    }
}

/// The host's event notifier: a C function and its context.
public struct Notifier: @unchecked Sendable {
    let function: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let context: UnsafeMutableRawPointer?

    public init(function: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void, context: UnsafeMutableRawPointer?) {
        self.function = function
        self.context = context
    }

    func call() { function(context) }
}
