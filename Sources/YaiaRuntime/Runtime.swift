import CYaia
import YaiaCore

/// The root object: scene catalog, open scenes, effects in flight, services
/// and the event queue.
///
/// Locking: `lock` guards the runtime's tables; each scene has its own lock
/// that serializes its reductions. A scene lock may be held while taking
/// `lock` or the event queue's lock, never the other way round, and no lock
/// is held while calling a service.
public final class Runtime: @unchecked Sendable {
    public let catalog: SceneCatalog
    let events = EventQueue()

    private let lock = Lock()
    private var scenes: [Int64: SceneSlot] = [:]
    private var effects: [Int64: EffectRecord] = [:]
    private var services: [String: ServiceEntry] = [:]
    private var plugins: [PluginInfo] = []
    private var nextSceneID: Int64 = 1
    private var nextEffectID: Int64 = 1
    private var isShutDown = false

    public init(catalog: SceneCatalog) {
        self.catalog = catalog
    }

    /// A runtime configured by `{"plugins": [...]}`. On failure nothing of it is kept.
    public convenience init(catalog: SceneCatalog, config: JSON) throws(YaiaError) {
        self.init(catalog: catalog)
        guard case .object(let o) = config else {
            throw YaiaError(.notAnObject, "the runtime config must be an object, not \(config.kindName)")
        }
        for (key, _) in o where key != "plugins" {
            throw YaiaError(.badConfig, "unknown config key \"\(key)\"", at: JSONPointer.appending("", key))
        }
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
        } catch {
            shutDown()
            throw error
        }
    }

    // MARK: scenes

    public func open(_ name: String, args: JSON = [:]) throws(YaiaError) -> JSON {
        guard let type = catalog[name] else {
            throw YaiaError(.unknownScene, "no scene type named \"\(name)\"")
        }
        let value = try type.open(args: args)
        let slot = try lock.withLock { () throws(YaiaError) -> SceneSlot in
            try checkRunning()
            let slot = SceneSlot(id: nextSceneID, value: value)
            nextSceneID += 1
            scenes[slot.id] = slot
            return slot
        }
        return slot.lock.withLock { update(slot, effects: [], routes: [], cause: nil) }
    }

    public func send(scene id: Int64, action: Action) throws(YaiaError) -> JSON {
        let slot = try scene(id)
        let (response, calls) = try reduce(slot, action, cause: nil)
        start(calls)
        return response
    }

    public func state(scene id: Int64) throws(YaiaError) -> JSON {
        let slot = try scene(id)
        return try slot.lock.withLock { () throws(YaiaError) -> JSON in
            guard !slot.closed else { throw noSuchScene(id) }
            return ["ok": true, "scene": .int(id), "name": .string(slot.value.name), "seq": .int(slot.seq),
                    "state": slot.value.json, "viewModel": slot.value.viewModel]
        }
    }

    /// Closes a scene; its effects are dropped and running calls cancelled.
    public func close(scene id: Int64) throws(YaiaError) {
        let (slot, dropped) = try lock.withLock { () throws(YaiaError) -> (SceneSlot, [EffectRecord]) in
            guard let slot = scenes.removeValue(forKey: id) else { throw noSuchScene(id) }
            let dropped = effects.values.filter { $0.sceneID == id }
            for e in dropped { effects[e.id] = nil }
            return (slot, dropped)
        }
        slot.lock.withLock { slot.closed = true }
        cancel(dropped)
    }

    public func sceneList() -> JSON {
        let list = lock.withLock { scenes.values.sorted { $0.id < $1.id } }
        let open = list.map { slot in
            slot.lock.withLock { JSON.object(["id": .int(slot.id), "name": .string(slot.value.name), "seq": .int(slot.seq)]) }
        }
        return ["ok": true, "types": .array(catalog.names.map(JSON.string)), "scenes": .array(open)]
    }

    // MARK: effects

    /// The host's outcome for a pending effect. If the scene cannot read the
    /// resulting action, the effect stays pending and the error is thrown.
    public func resolve(effect id: Int64, outcome: Outcome) throws(YaiaError) -> JSON {
        let (record, slot) = try lock.withLock { () throws(YaiaError) -> (EffectRecord, SceneSlot?) in
            guard let record = effects[id] else {
                if id > 0 && id < nextEffectID {
                    throw YaiaError(.effectAlreadyResolved, "effect \(id) is no longer pending: it was resolved, or its scene closed")
                }
                throw YaiaError(.noSuchEffect, "no effect with id \(id)")
            }
            guard record.status == .pending else {
                throw YaiaError(.effectNotPending, "effect \(id) is being performed by service \"\(record.effect.service)\"; only it completes it")
            }
            return (record, scenes[record.sceneID])
        }
        guard let slot else { throw noSuchScene(record.sceneID) }
        guard let action = record.effect.outcomeAction(outcome) else {
            // Nothing to deliver: the effect asked for no action on this outcome.
            try claim(id)
            return slot.lock.withLock { update(slot, effects: [], routes: [], cause: nil) }
        }
        let (response, calls) = try reduce(slot, action, cause: nil) { () throws(YaiaError) in
            try slot.value.check(action)
            try self.claim(id)
        }
        start(calls)
        return response
    }

    private func claim(_ id: Int64) throws(YaiaError) {
        try lock.withLock { () throws(YaiaError) in
            guard effects.removeValue(forKey: id) != nil else {
                throw YaiaError(.effectAlreadyResolved, "effect \(id) was resolved meanwhile")
            }
        }
    }

    /// A service's outcome for a running effect: reduced now, update queued.
    func complete(effectID: Int64, outcome: Outcome) {
        let found = lock.withLock { () -> (EffectRecord, SceneSlot)? in
            guard let record = effects.removeValue(forKey: effectID), let slot = scenes[record.sceneID] else { return nil }
            return (record, slot)
        }
        guard let (record, slot) = found, let action = record.effect.outcomeAction(outcome) else { return }
        do throws(YaiaError) {
            let (_, calls) = try reduce(slot, action, cause: effectID)
            start(calls)
        } catch {
            Log.write(.warning, "runtime", "scene \(slot.id) refused the outcome of effect \(effectID): \(error.message)")
            events.push(["ok": false, "event": "error", "scene": .int(slot.id), "effect": .int(effectID),
                         "error": error.nested(under: "/action").json])
        }
    }

    /// Reduces one action on a scene. With a `cause`, the update is queued as
    /// an event (inside the scene lock, so events of a scene keep their order).
    private func reduce(_ slot: SceneSlot, _ action: Action, cause: Int64?,
                        before: () throws(YaiaError) -> Void = {}) throws(YaiaError) -> (JSON, [PendingCall]) {
        try slot.lock.withLock { () throws(YaiaError) -> (JSON, [PendingCall]) in
            guard !slot.closed else { throw noSuchScene(slot.id) }
            try before()
            let commands = try slot.value.reduce(action)
            slot.seq += 1
            var emitted: [Effect] = []
            var routes: [JSON] = []
            for command in commands {
                switch command {
                case .effect(let e): emitted.append(e)
                case .route(let r): routes.append(r.json)
                }
            }
            let (records, calls) = register(emitted, scene: slot.id)
            let response = update(slot, effects: records, routes: routes, cause: cause)
            if cause != nil { events.push(response) }
            return (response, calls)
        }
    }

    /// Gives effects ids; those with a registered service become calls to start.
    private func register(_ emitted: [Effect], scene: Int64) -> ([EffectRecord], [PendingCall]) {
        guard !emitted.isEmpty else { return ([], []) }
        return lock.withLock {
            var records: [EffectRecord] = []
            var calls: [PendingCall] = []
            for effect in emitted {
                let service = services[effect.service]
                let record = EffectRecord(id: nextEffectID, sceneID: scene, effect: effect, status: service == nil ? .pending : .running)
                nextEffectID += 1
                effects[record.id] = record
                records.append(record)
                if let service { calls.append(PendingCall(effectID: record.id, effect: effect, service: service)) }
            }
            return (records, calls)
        }
    }

    /// Calls services, outside every lock: a service may complete inline.
    private func start(_ pending: [PendingCall]) {
        for p in pending {
            let handle = calls.insert(CallTarget(runtime: self, effectID: p.effectID, service: p.service))
            let live = lock.withLock { () -> Bool in
                guard effects[p.effectID] != nil else { return false }
                effects[p.effectID]?.call = handle
                return true
            }
            guard live else {
                calls.remove(handle)
                continue
            }
            var args = p.effect.args.serializedBytes()
            args.append(0)
            p.effect.op.withCString { op in
                args.withUnsafeBytes { bytes in
                    p.service.perform(p.service.ctx, callPointer(handle), op, bytes.baseAddress?.assumingMemoryBound(to: CChar.self))
                }
            }
        }
    }

    /// Drops effects; running calls are withdrawn and their services told.
    private func cancel(_ records: [EffectRecord]) {
        for record in records {
            guard let handle = record.call, let target = calls.remove(handle) else { continue }
            target.service.cancel?(target.service.ctx, callPointer(handle))
        }
    }

    private func update(_ slot: SceneSlot, effects records: [EffectRecord], routes: [JSON], cause: Int64?) -> JSON {
        // Members in key order, so the object is built without sorting.
        var members: [JSONObject.Member] = []
        members.reserveCapacity(8)
        if let cause { members.append(.init(key: "effect", value: .int(cause))) }
        members.append(.init(key: "effects", value: .array(records.map(\.json))))
        if cause != nil { members.append(.init(key: "event", value: "update")) }
        members.append(.init(key: "ok", value: true))
        members.append(.init(key: "routes", value: .array(routes)))
        members.append(.init(key: "scene", value: .int(slot.id)))
        members.append(.init(key: "seq", value: .int(slot.seq)))
        members.append(.init(key: "viewModel", value: slot.value.viewModel))
        return .object(JSONObject(members: members))
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
            for e in entries { e.release?(e.ctx) }
            throw error
        }
        return info
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

    /// Closes every scene, cancels running calls, releases services, wakes receivers.
    public func shutDown() {
        let (slots, dropped, released) = lock.withLock { () -> ([SceneSlot], [EffectRecord], [ServiceEntry]) in
            guard !isShutDown else { return ([], [], []) }
            isShutDown = true
            defer {
                scenes.removeAll()
                effects.removeAll()
                services.removeAll()
            }
            return (Array(scenes.values), Array(effects.values), Array(services.values))
        }
        for slot in slots { slot.lock.withLock { slot.closed = true } }
        cancel(dropped)
        for s in released { s.release?(s.ctx) }
        events.close()
    }

    private func scene(_ id: Int64) throws(YaiaError) -> SceneSlot {
        guard let slot = lock.withLock({ scenes[id] }) else { throw noSuchScene(id) }
        return slot
    }

    private func checkRunning() throws(YaiaError) {
        if isShutDown { throw YaiaError(.badHandle, "the runtime has been freed") }
    }

    private func noSuchScene(_ id: Int64) -> YaiaError {
        YaiaError(.noSuchScene, "no open scene with id \(id)")
    }
}

/// An open scene. Its lock serializes reductions; `closed` is set under it.
final class SceneSlot: @unchecked Sendable {
    let id: Int64
    let lock = Lock()
    var value: SceneValue
    var seq: Int64 = 0
    var closed = false

    init(id: Int64, value: SceneValue) {
        self.id = id
        self.value = value
    }
}

struct EffectRecord: Sendable {
    enum Status: String, Sendable { case pending, running }

    let id: Int64
    let sceneID: Int64
    let effect: Effect
    let status: Status
    /// The call handle, once a service was asked to perform it.
    var call: UInt?

    init(id: Int64, sceneID: Int64, effect: Effect, status: Status) {
        self.id = id
        self.sceneID = sceneID
        self.effect = effect
        self.status = status
    }

    var json: JSON {
        ["id": .int(id), "service": .string(effect.service), "op": .string(effect.op), "args": effect.args,
         "status": .string(status.rawValue)]
    }
}

struct PendingCall: Sendable {
    let effectID: Int64
    let effect: Effect
    let service: ServiceEntry
}
