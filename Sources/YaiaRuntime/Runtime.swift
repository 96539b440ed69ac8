import CYaia
import Synchronization
import YaiaCore

/// The root object: scene catalog, open scenes, effects in flight, services
/// and the event queue.
///
/// Locking: `lock` guards the runtime's tables and every EffectCall; each
/// scene has its own lock that serializes its reductions. A scene lock may be
/// held while taking `lock` or the event queue's lock, never the other way
/// round, and no lock is held while calling a service or the notifier.
public final class Runtime: @unchecked Sendable {
    public let catalog: Catalog
    /// What requests may do beyond the ordinary ops (the config's "allow").
    public let grants: Grants
    public let limits: Limits
    /// The time deadlines run on.
    public let clock: RuntimeClock
    let events: EventQueue
    private let pool: WorkerPool
    private var timerTable: Timers?

    let lock = Lock()
    var scenes: [Int64: SceneSlot] = [:]
    /// The effects in flight, as a value: it makes every decision about them.
    var effectTable = EffectTable(maxID: Runtime.maxID)
    /// The calls of running effects (and their direct callers), by effect id.
    var effectCalls: [Int64: EffectCall] = [:]
    var services: [String: ServiceEntry] = [:]
    private var plugins: [PluginInfo] = []
    var nextSceneID: Int64 = 1
    var flows: [Int64: FlowSlot] = [:]
    var nextFlowID: Int64 = 1
    private var isShutDown = false
    private var notifier: Notifier?
    var journal: Journal?
    /// Journals stopped or replaced, kept (closed, their buffers let go)
    /// until the runtime goes: a send uses `journal` unretained, which saves
    /// a retain and a release on every send.
    var pastJournals: [Journal] = []
    /// A scratch runtime re-running a journal: no deadlines, outcomes come from the journal.
    var replaying = false
    /// Queue inspection events (action, effect, route, flow). Read on every
    /// reduction, set rarely: an atomic, not the runtime lock.
    private let inspecting = Atomic<Bool>(false)
    /// Effect ids ran out: reductions are refused. Read on every reduction.
    private let effectIDsExhausted = Atomic<Bool>(false)

    /// Hands out the id `counter` holds and counts on; `ids_exhausted`
    /// past `Runtime.maxID`. Caller holds `lock`.
    func takeID(_ counter: inout Int64, _ kind: String) throws(YaiaError) -> Int64 {
        guard counter <= Runtime.maxID else { throw Runtime.idsExhausted(kind) }
        defer { counter += 1 }
        return counter
    }

    static func idsExhausted(_ kind: String) -> YaiaError {
        YaiaError(.idsExhausted, "no \(kind) ids are left: ids end at \(Runtime.maxID)")
    }

    public static let defaultWorkers = 4

    public init(catalog: Catalog, workers: Int = Runtime.defaultWorkers, grants: Grants = Grants(), limits: Limits = Limits(),
                clock: RuntimeClock = .system) {
        self.catalog = catalog
        self.grants = grants
        self.limits = limits
        self.clock = clock
        self.events = EventQueue(capacity: limits.events)
        self.pool = WorkerPool(size: workers)
    }

    public convenience init(catalog: SceneCatalog, workers: Int = Runtime.defaultWorkers, grants: Grants = Grants(), limits: Limits = Limits(),
                            clock: RuntimeClock = .system) {
        self.init(catalog: Catalog(catalog), workers: workers, grants: grants, limits: limits, clock: clock)
    }

    static let configKeys = ["scenes", "plugins", "workers", "bind", "restore", "journal", "inspect", "allow", "limits", "clock"]

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
        var catalog = base
        if let list = o["scenes"] {
            guard case .array(let items) = list else {
                throw YaiaError(.badConfig, "\"scenes\" must be an array of scene pack paths", at: "/scenes")
            }
            for (i, item) in items.enumerated() {
                let at = JSONPointer.appending("/scenes", i)
                guard case .string(let path) = item else { throw YaiaError(.badConfig, "a scene pack entry is a path", at: at) }
                do throws(YaiaError) {
                    try catalog.add(try loadScenePack(path: path))
                } catch {
                    throw YaiaError(error.code, error.message, at: at)
                }
            }
        }
        self.init(catalog: catalog, workers: workers, grants: grants, limits: limits, clock: clock)
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
                    throw YaiaError(error.code == .badSnapshot ? .badConfig : error.code, error.message, at: "/restore" + (error.at ?? ""))
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

    // MARK: scenes

    /// Opens a scene from `args`, or, given a `state`, in that state (as a
    /// snapshot restores it: `bad_state` when the scene refuses it).
    public func open(_ name: String, args: JSON = [:], state: JSON? = nil) throws(YaiaError) -> JSON {
        let type = try sceneType(name)
        let value: any LiveScene
        if let state { value = try type.restore(state: state) } else { value = try type.open(args: args) }
        return try input({ () throws(YaiaError) -> JSON in
            let slot = try lock.withLock { () throws(YaiaError) -> SceneSlot in
                try checkRunning()
                try checkSceneRoom()
                let slot = SceneSlot(id: try takeID(&nextSceneID, "scene"), value: value)
                scenes[slot.id] = slot
                return slot
            }
            return slot.lock.withLock { update(slot, effects: [], routes: [], cause: .request) }
        }, record: { r in (.open(scene: name, args: args, state: state, id: r["scene"] ?? .null), r) })
    }

    public func send(scene id: Int64, action: Action) throws(YaiaError) -> JSON {
        let slot = try scene(id)
        let (response, work) = try input({ () throws(YaiaError) in try reduce(slot, action, cause: .request) },
                                         record: { r in (.send(scene: id, action: action), r.0) })
        run(work)
        return response
    }

    /// `send`, with the response written into `writer`: with a journal, the
    /// bytes written are also what its digest is taken from, so the view
    /// model is serialized once.
    public func send(scene id: Int64, action: Action, actionText: UnsafeBufferPointer<UInt8>? = nil,
                     into writer: inout JSONWriter) throws(YaiaError) {
        let (slot, journal) = try lock.withLock { () throws(YaiaError) -> (SceneSlot, Unmanaged<Journal>?) in
            guard let slot = scenes[id] else { throw noSuchScene(id) }
            return (slot, self.journal.map(Unmanaged.passUnretained))
        }
        guard let journal else {
            // The view model goes from the scene into the response as the
            // scene wrote it, under the scene's lock: a pack's is not parsed.
            let work = try slot.lock.withLock { () throws(YaiaError) -> Work in
                var work = Work()
                let response = try reduceLocked(slot, action, cause: .request, work: &work, text: actionText, viewModelLater: true)
                writer.write(response)
                writer.replaceNullAtEnd { (w: inout JSONWriter) in slot.value.writeViewModel(into: &w) }
                return work
            }
            run(work)
            return
        }
        let result = journal._withUnsafeGuaranteedRef { journal -> Result<Work, YaiaError> in
            // The clock is read first: its latency then overlaps the reduction.
            let time = Journal.now()
            journal.lockInput()
            defer { journal.unlockInput() }
            return Result { () throws(YaiaError) -> Work in
                try slot.lock.withLock { () throws(YaiaError) -> Work in
                    var work = Work()
                    var response = try reduceLocked(slot, action, cause: .request, work: &work, text: actionText, viewModelLater: true)
                    // A stack in the response is digested with it: the view model must be there.
                    if work.stacked, case .object(var o) = response {
                        o["viewModel"] = slot.value.viewModel
                        response = .object(o)
                    }
                    journal.recordSend(scene: id, action: action, actionText: actionText, response: response, stacked: work.stacked,
                                       time: time, into: &writer, viewModel: { (w: inout JSONWriter) in slot.value.writeViewModel(into: &w) })
                    return work
                }
            }
        }
        let work = try result.get()
        run(work)
    }

    public func state(scene id: Int64) throws(YaiaError) -> JSON {
        let slot = try scene(id)
        return try slot.lock.withLock { () throws(YaiaError) -> JSON in
            guard !slot.closed else { throw noSuchScene(id) }
            return ["ok": true, "scene": .int(id), "name": .string(slot.value.name), "seq": .int(slot.seq),
                    "state": slot.value.json, "viewModel": slot.value.viewModel]
        }
    }

    /// Closes a scene; its effects are cancelled.
    public func close(scene id: Int64) throws(YaiaError) {
        try input({ () throws(YaiaError) in try closeScene(id) }, record: { _ in (.close(scene: id), nil) })
    }

    private func closeScene(_ id: Int64) throws(YaiaError) {
        let (slot, work) = try lock.withLock { () throws(YaiaError) -> (SceneSlot, Work) in
            guard let slot = scenes[id] else { throw noSuchScene(id) }
            if let flow = slot.flow {
                throw YaiaError(.sceneInFlow, "scene \(id) belongs to flow \(flow.id): navigate (pop, dismiss) or close the flow")
            }
            scenes[id] = nil
            var work = Work()
            absorb(effectTable.close(scenes: [id]), into: &work)
            return (slot, work)
        }
        slot.lock.withLock { slot.closed = true }
        run(work)
    }

    public func sceneList() -> JSON {
        let list = lock.withLock { scenes.values.sorted { $0.id < $1.id } }
        let open = list.map { slot in
            slot.lock.withLock { JSON.object(["id": .int(slot.id), "name": .string(slot.value.name), "seq": .int(slot.seq)]) }
        }
        let flowList = lock.withLock { flows.values.sorted { $0.id < $1.id } }.map { flow in
            flow.lock.withLock { () -> JSON in
                var o: JSONObject = ["id": .int(flow.id), "version": .int(flow.flow.version), "depth": .int(Int64(flow.flow.depth))]
                if let name = flow.name { o["name"] = .string(name) }
                return .object(o)
            }
        }
        return ["ok": true, "types": .array(catalog.names.map(JSON.string)), "packs": .array(catalog.packs.map(\.json)),
                "scenes": .array(open), "flows": .array(flowList)]
    }

    // MARK: reducing

    /// Why a scene was reduced: a direct request (answered), or an effect's
    /// outcome or a popped scene's result (queued as an event).
    enum Cause: Equatable {
        case request
        case effect(Int64)
        case result(from: Int64)
    }

    /// Reduces one action on a scene, taking its lock.
    private func reduce(_ slot: SceneSlot, _ action: Action, cause: Cause,
                        before: () throws(YaiaError) -> Void = {}) throws(YaiaError) -> (JSON, Work) {
        try slot.lock.withLock { () throws(YaiaError) -> (JSON, Work) in
            var work = Work()
            guard !slot.closed else { throw noSuchScene(slot.id) }
            try before()
            let response = try reduceLocked(slot, action, cause: cause, work: &work)
            return (response, work)
        }
    }

    /// Reduces one action; the caller holds the scene's lock. Effects are
    /// admitted, and in a flow its routes applied, before the lock is let go.
    /// Updates not caused by a request are queued as events, inside the lock,
    /// so that the events of a scene keep their order.
    /// `text` is the action as the caller sent it, when it has it.
    /// `viewModelLater`: the response's view model is left null, the last
    /// member, for the caller to write with `LiveScene.writeViewModel`.
    func reduceLocked(_ slot: SceneSlot, _ action: Action, cause: Cause, work: inout Work, depth: Int = 0,
                      text: UnsafeBufferPointer<UInt8>? = nil, viewModelLater: Bool = false) throws(YaiaError) -> JSON {
        guard !slot.closed else { throw noSuchScene(slot.id) }
        if effectIDsExhausted.load(ordering: .relaxed) { throw Runtime.idsExhausted("effect") }
        let commands = try slot.value.reduce(action, text: text)
        slot.seq &+= 1
        let inspect = inspecting.load(ordering: .relaxed)
        if inspect {
            events.push(["ok": true, "event": "action", "scene": .int(slot.id), "seq": .int(slot.seq), "action": action.json])
            work.notify = true
        }
        var routes: [Route] = []
        var emitted: [EffectTable.Record] = []
        if commands.contains(where: { if case .route = $0 { return false } else { return true } }) {
            let now = clock.now
            lock.withLock {
                for command in commands {
                    switch command {
                    case .route(let r): routes.append(r)
                    case .effect(let e):
                        let (record, steps) = effectTable.admit(e, scene: slot.id, served: services[e.service] != nil, now: now)
                        absorb(steps, into: &work)
                        emitted.append(record)
                    case .cancel(let key):
                        absorb(effectTable.cancel(key: key, scene: slot.id), into: &work)
                    }
                }
                if effectTable.exhausted { effectIDsExhausted.store(true, ordering: .relaxed) }
            }
        } else {
            for case .route(let r) in commands { routes.append(r) }
        }
        var navigationErrors: [JSON] = []
        let version = slot.flow?.flow.version
        if let flow = slot.flow {
            for route in routes {
                do throws(YaiaError) {
                    try navigate(flow, route, from: slot, work: &work, depth: depth)
                } catch {
                    navigationErrors.append(["route": route.json, "error": error.json])
                }
            }
        }
        var response = update(slot, effects: emitted, routes: routes.map(\.json), cause: cause, viewModelLater: viewModelLater)
        let flowChanged = slot.flow.map { $0.flow.version != version } ?? false
        if inspect {
            for record in emitted {
                events.push(["ok": true, "event": "effect", "scene": .int(slot.id), "effect": record.json, "request": record.effect.json])
            }
            for route in routes { events.push(["ok": true, "event": "route", "scene": .int(slot.id), "route": route.json]) }
            if flowChanged, let flow = slot.flow {
                var o: JSONObject = ["ok": true, "event": "flow"]
                flow.describe(into: &o)
                events.push(.object(o))
            }
        }
        if !navigationErrors.isEmpty || flowChanged, case .object(var o) = response {
            if !navigationErrors.isEmpty { o["navigationErrors"] = .array(navigationErrors) }
            if flowChanged, let flow = slot.flow {
                flow.describe(into: &o)
                work.stacked = true
            }
            response = .object(o)
        }
        if case .result = cause {
            // A result's update follows the update of the scene that caused it.
            work.resultEvents.append(response)
        } else if cause != .request {
            events.push(response)
            work.notify = true
        }
        if depth == 0 && !work.resultEvents.isEmpty {
            for event in work.resultEvents { events.push(event) }
            work.resultEvents.removeAll()
            work.notify = true
        }
        return response
    }

    func update(_ slot: SceneSlot, effects records: [EffectTable.Record], routes: [JSON], cause: Cause, viewModelLater: Bool = false) -> JSON {
        // Members in key order, so the object is built without sorting.
        var members: [JSONObject.Member] = []
        members.reserveCapacity(9)
        if case .effect(let id) = cause { members.append(.init(key: "effect", value: .int(id))) }
        members.append(.init(key: "effects", value: .array(records.map(\.json))))
        if cause != .request { members.append(.init(key: "event", value: "update")) }
        if case .result(let from) = cause { members.append(.init(key: "from", value: .int(from))) }
        members.append(.init(key: "ok", value: true))
        members.append(.init(key: "routes", value: .array(routes)))
        members.append(.init(key: "scene", value: .int(slot.id)))
        members.append(.init(key: "seq", value: .int(slot.seq)))
        members.append(.init(key: "viewModel", value: viewModelLater ? .null : slot.value.viewModel))
        return .object(JSONObject(members: members))
    }

    // MARK: effects: the table decides, the shell executes

    /// Applies the effect table's steps, under `lock`: calls to start, calls
    /// to withdraw and deadlines to arm go into `work`, executed once every
    /// lock is let go.
    func absorb(_ steps: [EffectTable.Step], into work: inout Work) {
        for step in steps {
            switch step {
            case .start(let id):
                guard let record = effectTable[id], let service = services[record.effect.service] else { continue }
                let call = EffectCall(service: service)
                effectCalls[id] = call
                work.launches.append((id, record.effect, call))
            case .cancel(let id):
                if let call = effectCalls.removeValue(forKey: id) { work.cancels.append(call) }
            case .arm(let id, let at):
                work.deadlines.append((id, at))
            }
        }
    }

    /// Effect `id` ended with an outcome: out of the table (the next of its
    /// queue may start) and its call forgotten. Under `lock`.
    private func end(_ id: Int64, work: inout Work) -> (EffectTable.Record, EffectCall?)? {
        let now = clock.now
        guard let (record, steps) = effectTable.end(id, served: { services[$0] != nil }, now: now) else { return nil }
        let call = effectCalls.removeValue(forKey: id)
        absorb(steps, into: &work)
        return (record, call)
    }

    // MARK: outcomes

    /// The host's outcome for a pending effect. If the scene cannot read the
    /// resulting action, the effect stays pending and the error is thrown.
    public func resolve(effect id: Int64, outcome: Outcome) throws(YaiaError) -> JSON {
        let (response, work) = try input({ () throws(YaiaError) in try resolveInput(effect: id, outcome: outcome) },
                                         record: { r in (.outcome(effect: id, outcome), r.0) })
        run(work)
        return response
    }

    private func resolveInput(effect id: Int64, outcome: Outcome) throws(YaiaError) -> (JSON, Work) {
        let (record, slot) = try lock.withLock { () throws(YaiaError) -> (EffectTable.Record, SceneSlot?) in
            guard let record = effectTable[id] else {
                if effectTable.issued(id) {
                    throw YaiaError(.effectAlreadyResolved, "effect \(id) is no longer pending: it was resolved, cancelled or timed out, or its scene closed")
                }
                throw YaiaError(.noSuchEffect, "no effect with id \(id)")
            }
            guard record.status == .pending, record.scene != 0 else {
                throw YaiaError(.effectNotPending, "effect \(id) is \(record.status.rawValue): only its service completes it")
            }
            return (record, scenes[record.scene])
        }
        guard let slot else { throw noSuchScene(record.scene) }
        var claimed = Work()
        let claim = { () throws(YaiaError) in
            claimed = try self.lock.withLock { () throws(YaiaError) -> Work in
                var work = Work()
                guard self.effectTable[id] == record, self.end(id, work: &work) != nil else {
                    throw YaiaError(.effectAlreadyResolved, "effect \(id) was resolved meanwhile")
                }
                return work
            }
        }
        guard let action = record.effect.outcomeAction(outcome) else {
            // The effect asked for no action on this outcome: nothing to reduce.
            try claim()
            return (slot.lock.withLock { update(slot, effects: [], routes: [], cause: .request) }, claimed)
        }
        var (response, work) = try reduce(slot, action, cause: .request) { () throws(YaiaError) in
            try slot.value.check(action)
            try claim()
        }
        work.merge(claimed)
        return (response, work)
    }

    /// A service's outcome (or a time-out) for a live effect: reduced now,
    /// its update queued, and journaled. Outcomes of effects no longer live
    /// are dropped.
    func finish(effectID: Int64, outcome: Outcome) {
        var work = Work()
        work.offThread = true
        _ = try? input({ () throws(YaiaError) -> JSON? in complete(effectID: effectID, outcome: outcome, work: &work) },
                       record: { r in r.map { (.outcome(effect: effectID, outcome), $0) } })
        run(work)
    }

    /// Ends a live effect with its outcome. Returns the update of the scene
    /// that received it, or nil when nothing was reduced. Not journaled.
    @discardableResult
    func complete(effectID: Int64, outcome: Outcome, work: inout Work) -> JSON? {
        let found = lock.withLock { () -> (EffectTable.Record, EffectCall?, SceneSlot?)? in
            guard let live = effectTable[effectID], live.status != .queued, let (record, call) = end(effectID, work: &work) else { return nil }
            return (record, call, scenes[record.scene])
        }
        guard let (record, call, slot) = found else { return nil }
        if let waiter = call?.waiter {
            waiter.deliver(outcome)
            return nil
        }
        // Still journaled (the effect ended) even when nothing is reduced.
        guard let slot, let action = record.effect.outcomeAction(outcome) else { return .object([:]) }
        do throws(YaiaError) {
            let (response, more) = try reduce(slot, action, cause: .effect(effectID))
            work.merge(more)
            return response
        } catch {
            guard error.code != .noSuchScene else { return .object([:]) }
            Log.write(.warning, "runtime", "scene \(slot.id) refused the outcome of effect \(effectID): \(error.message)")
            events.push(["ok": false, "event": "error", "scene": .int(slot.id), "effect": .int(effectID),
                         "error": error.nested(under: "/action").json])
            work.notify = true
            return .object([:])
        }
    }

    /// A deadline may have passed: if effect `id`'s has on the clock now,
    /// its call is withdrawn (the service told, a late completion made
    /// stale) and then the catch action told; a direct call's caller gives up.
    func timedOut(_ id: Int64) {
        let now = clock.now
        let call = lock.withLock { () -> EffectCall?? in
            guard let record = effectTable[id], record.status != .queued, let deadline = record.deadline, deadline <= now else { return nil }
            let call = effectCalls.removeValue(forKey: id)
            if call?.waiter != nil { _ = effectTable.end(id, served: { _ in false }, now: now) }
            return .some(call)
        }
        guard let call else { return }
        if let call { cancelCalls([call]) }
        if let waiter = call?.waiter {
            waiter.expire()
            return
        }
        guard let record = lock.withLock({ effectTable[id] }) else { return }
        finish(effectID: id, outcome: .failure(["code": .string(ErrorCode.timeout.rawValue),
                                                "message": .string("effect \(id) (\(record.effect.service).\(record.effect.op)) timed out")]))
    }

    // MARK: direct calls

    /// Performs one effect outside any scene and waits for its outcome, at
    /// most its timeout (default `directTimeout` seconds) on the runtime's clock.
    public static let directTimeout = 60.0

    public func perform(_ effect: Effect) throws(YaiaError) -> JSON {
        let waiter = Waiter()
        let seconds = effect.timeout ?? Runtime.directTimeout
        let work = try lock.withLock { () throws(YaiaError) -> Work in
            try checkRunning()
            guard services[effect.service] != nil else {
                throw YaiaError(.noSuchService, "no service named \"\(effect.service)\"", at: "/effect/service")
            }
            var work = Work()
            let (record, steps) = effectTable.direct(effect, timeout: seconds, now: clock.now)
            absorb(steps, into: &work)
            effectCalls[record.id]?.waiter = waiter
            return work
        }
        run(work, armAlways: true)
        guard let outcome = waiter.wait() else {
            throw YaiaError(.timeout, "\(effect.service).\(effect.op) did not complete within \(seconds) s")
        }
        switch outcome {
        case .success(let result):
            return ["ok": true, "result": result]
        case .failure(let detail) where detail["code"] == "cancelled":
            throw YaiaError(.badHandle, "the runtime was freed while \(effect.service).\(effect.op) was in flight")
        case .failure(let detail):
            // Failures the runtime itself reports keep their code.
            var code = ErrorCode.serviceFailed
            let own: Set<String> = [ErrorCode.timeout.rawValue, ErrorCode.badResult.rawValue, ErrorCode.badArgument.rawValue,
                                    ErrorCode.limitExceeded.rawValue]
            if case .string(let c)? = detail["code"], own.contains(c) {
                code = ErrorCode(rawValue: c)
            }
            let message = detail["message"]?.stringValue ?? "\(effect.service).\(effect.op) failed"
            var error = YaiaError(code, message).json.objectValue ?? [:]
            if code == .limitExceeded { error["limit"] = detail["limit"] }
            error["detail"] = detail
            return ["ok": false, "error": .object(error)]
        }
    }

    // MARK: side work, done outside every lock

    /// What a reduction or an ending effect leaves to do once locks are released.
    struct Work {
        var launches: [(Int64, Effect, EffectCall)] = []
        var cancels: [EffectCall] = []
        var deadlines: [(Int64, Double)] = []
        var notify = false
        /// Set on the paths that end effects (completions, time-outs): their
        /// launches go through the pool, so that perform() never runs inside
        /// a service's own call_complete and cannot deadlock on its locks.
        var offThread = false
        /// Updates of scenes that received a popped scene's result, queued
        /// once the reduction that popped is queued.
        var resultEvents: [JSON] = []
        /// A response (of this reduction, or of one it caused) carries a
        /// flow's stack; without one, a response's last member is its view
        /// model, which is all a journal line's digest covers.
        var stacked = false

        mutating func merge(_ other: Work) {
            launches += other.launches
            cancels += other.cancels
            deadlines += other.deadlines
            notify = notify || other.notify
            stacked = stacked || other.stacked
        }
    }

    /// Executes `work`. Deadlines are the table's data: on the system clock a
    /// timer thread wakes at each; a manual clock fires them in `advance`. A
    /// replaying runtime arms none (its outcomes, time-outs included, come
    /// from the journal) unless `armAlways`.
    func run(_ work: Work, armAlways: Bool = false) {
        if !work.deadlines.isEmpty && (!replaying || armAlways) && !clock.isManual {
            let timers = timers()
            for (id, deadline) in work.deadlines { timers.schedule(id, at: deadline) }
        }
        cancelCalls(work.cancels)
        for (id, effect, call) in work.launches { launch(id, effect, call, offThread: work.offThread) }
        if work.notify { notify() }
    }

    private func timers() -> Timers {
        lock.withLock { () -> Timers in
            if let t = timerTable { return t }
            let t = Timers { [weak self] id in self?.timedOut(id) }
            timerTable = t
            return t
        }
    }

    /// Moves a manual clock forward by `seconds`; the deadlines it passes
    /// fire, earliest first, before this returns. `not_permitted` on the
    /// system clock.
    public func advance(by seconds: Double) throws(YaiaError) -> JSON {
        guard case .manual(let manual) = clock else {
            throw YaiaError(.notPermitted, "advance moves a manual clock; this runtime runs on the system clock (config \"clock\": \"manual\")", at: "/op")
        }
        guard seconds.isFinite, seconds >= 0 else {
            throw YaiaError(.badRequest, "\"seconds\" must be a finite number, 0 or more", at: "/seconds")
        }
        let now = manual.advance(by: seconds)
        let due = lock.withLock { effectTable.due(at: now) }
        for id in due { timedOut(id) }
        return ["ok": true, "now": .double(now), "fired": .int(Int64(due.count))]
    }

    /// Hands a running effect to its service: inline, or on the pool if it blocks.
    private func launch(_ id: Int64, _ effect: Effect, _ call: EffectCall, offThread: Bool) {
        let service = call.service
        let handle = calls.insert(CallTarget(runtime: self, effectID: id, service: service))
        let live = lock.withLock { () -> Bool in
            guard effectCalls[id] === call else { return false }
            call.handle = handle
            return true
        }
        guard live else {
            calls.remove(handle)
            return
        }
        let reentry = limits.reentry
        let perform: @Sendable () -> Void = { [weak self] in
            guard let target = calls.get(handle), target.start() else { return }
            // A service that calls back into the runtime from perform() and
            // so performs again on this thread must not recurse without end.
            guard cyaia_reentry_enter(Int32(reentry)) != 0 else {
                guard calls.remove(handle) != nil else { return }
                let error = YaiaError.limit("reentry", reentry, "\(effect.service).\(effect.op) was called from inside \(reentry) service calls on one thread")
                self?.finish(effectID: id, outcome: .failure(error.json))
                return
            }
            defer { cyaia_reentry_leave() }
            if !service.perform(handle, op: effect.op, args: effect.args) {
                calls.remove(handle)
            }
        }
        if service.blocking || offThread {
            if !pool.submit(perform) {
                calls.remove(handle)
                finish(effectID: id, outcome: .failure(["code": "internal", "message": "no worker thread could be started"]))
            }
        } else {
            perform()
        }
    }

    /// Withdraws the calls of ended effects; services that saw them are told.
    private func cancelCalls(_ ended: [EffectCall]) {
        for call in ended {
            guard let handle = lock.withLock({ call.handle }), let target = calls.remove(handle) else { continue }
            if target.cancel() { target.service.cancel(handle) }
        }
    }

    // MARK: services

    public func addService(_ entry: ServiceEntry) throws(YaiaError) {
        try lock.withLock { () throws(YaiaError) in
            try checkRunning()
            guard services[entry.name] == nil else {
                throw YaiaError(.duplicateService, "a service named \"\(entry.name)\" is already registered")
            }
            services[entry.name] = entry
        }
    }

    @discardableResult
    public func loadPlugin(path: String, config: JSON) throws(YaiaError) -> PluginInfo {
        let taken = lock.withLock { Set(services.keys) }
        let (info, entries) = try YaiaRuntime.loadPlugin(path: path, config: config, taken: taken)
        do throws(YaiaError) {
            try lock.withLock { () throws(YaiaError) in
                try checkRunning()
                // Another thread may have registered a name meanwhile.
                if let clash = entries.first(where: { services[$0.name] != nil }) {
                    throw YaiaError(.duplicateService, "plugin \(info.name) registers service \"\(clash.name)\", which is already registered")
                }
                for e in entries { services[e.name] = e }
                plugins.append(info)
            }
        } catch {
            for e in entries { e.retire() }
            throw error
        }
        return info
    }

    /// Binds a service to a shared library's functions (see docs/ffi.md).
    @discardableResult
    public func bind(_ binding: JSONObject, at pointer: String = "") throws(YaiaError) -> JSON {
        let entry = try bindLibrary(binding, at: pointer)
        try addService(entry)
        let ops = (entry.native as? ForeignService)?.functions.keys.sorted() ?? []
        return ["ok": true, "service": .string(entry.name), "ops": .array(ops.map(JSON.string))]
    }

    public func serviceList() -> JSON {
        let list = lock.withLock { services.values.sorted { $0.name < $1.name } }
        return ["ok": true, "services": .array(list.map(\.json))]
    }

    // MARK: events and lifetime

    /// The next queued event, waiting up to `timeout` seconds (negative: no limit).
    public func receive(timeout: Double) -> JSON? {
        events.pop(timeout: timeout.isNaN ? 0 : timeout)
    }

    /// Threads blocked in receive() now.
    var receiversBlocked: Int { events.receiversBlocked }

    public func setInspecting(_ on: Bool) {
        inspecting.store(on, ordering: .relaxed)
    }

    /// Called after each queued event, outside every lock.
    public func setNotifier(_ notifier: Notifier?) {
        lock.withLock { self.notifier = notifier }
    }

    func notify() {
        lock.withLock { notifier }?.call()
    }

    /// Closes every scene, cancels every call, retires the services (each is
    /// released once its callbacks under way return) and wakes receivers.
    public func shutDown() {
        let (slots, oldFlows, dropped, retired) = lock.withLock { () -> ([SceneSlot], [FlowSlot], [EffectCall], [ServiceEntry]) in
            guard !isShutDown else { return ([], [], [], []) }
            isShutDown = true
            notifier = nil
            defer {
                scenes.removeAll()
                flows.removeAll()
                _ = effectTable.removeAll()
                effectCalls.removeAll()
                services.removeAll()
            }
            return (Array(scenes.values), Array(flows.values), Array(effectCalls.values), Array(services.values))
        }
        for slot in slots { slot.lock.withLock { slot.closed = true } }
        for flow in oldFlows { flow.dissolve() }
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

    private func scene(_ id: Int64) throws(YaiaError) -> SceneSlot {
        guard let slot = lock.withLock({ scenes[id] }) else { throw noSuchScene(id) }
        return slot
    }

    func checkRunning() throws(YaiaError) {
        if isShutDown { throw YaiaError(.badHandle, "the runtime has been freed") }
    }

    /// `limit_exceeded` when another scene would pass the "scenes" limit; under `lock`.
    func checkSceneRoom(adding count: Int = 1) throws(YaiaError) {
        guard scenes.count + count <= limits.scenes else {
            throw YaiaError.limit("scenes", limits.scenes, "\(scenes.count) scenes are open")
        }
    }

    /// The scene type `name`, or `unknown_scene` with the nearest name.
    func sceneType(_ name: String, at pointer: String? = nil) throws(YaiaError) -> CatalogEntry {
        guard let type = catalog[name] else {
            throw YaiaError(.unknownScene, "no scene type named \"\(name)\"" + Suggestion.hint(name, among: catalog.names), at: pointer)
        }
        return type
    }

    func noSuchScene(_ id: Int64) -> YaiaError {
        YaiaError(.noSuchScene, "no open scene with id \(id)")
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

/// An open scene. Its lock serializes reductions; `closed` is set under it.
/// The scenes of a flow share the flow's lock, so navigation that touches
/// several of them (close, deliver a result) happens in one critical section.
final class SceneSlot: @unchecked Sendable {
    let id: Int64
    let lock: Lock
    /// The flow the scene belongs to, if any; fixed at creation.
    let flow: FlowSlot?
    var value: any LiveScene
    var seq: Int64 = 0
    var closed = false

    init(id: Int64, value: any LiveScene, flow: FlowSlot? = nil) {
        self.id = id
        self.value = value
        self.flow = flow
        self.lock = flow?.lock ?? Lock()
    }
}

/// The shell's side of a running effect: the service performing it, the
/// call handle it was given, and the thread waiting for a direct call.
/// Mutable fields are guarded by the runtime's lock.
final class EffectCall: @unchecked Sendable {
    let service: ServiceEntry
    var waiter: Waiter?
    /// The call handle, once the service was asked to perform it.
    var handle: UInt?

    init(service: ServiceEntry) { self.service = service }
}
