import YaiaCore

/// Snapshots: the whole runtime as one JSON document, and back.
extension Runtime {
    public static let snapshotFormat = "yaia.snapshot/1"

    /// The largest id, seq, version or counter a snapshot or a journal may
    /// hold, and the largest id the runtime hands out: 2^53, where JSON
    /// numbers are exact everywhere. Counting on by one from there cannot
    /// overflow 64 bits in any lifetime.
    public static let maxID: Int64 = 1 << 53

    /// How restored effects are treated.
    enum RestoreMode {
        /// Each effect's own `restore` policy applies (reissue, cancel, await).
        case live
        /// Effects stay exactly as they were, waiting for outcomes from a journal.
        case replay
    }

    /// Flows, scene states, effects in flight and counters. Consistent: every
    /// scene is locked while it is taken.
    public func snapshot() -> JSON {
        let slots = lock.withLock { Array(scenes.values) }
        return withSceneLocks(slots) {
            lock.withLock {
                let sceneList = slots.filter { !$0.closed }.sorted { $0.id < $1.id }.map { slot -> JSON in
                    var o: JSONObject = ["id": .int(slot.id), "name": .string(slot.value.name), "seq": .int(slot.seq), "state": slot.value.json]
                    if let flow = slot.flow { o["flow"] = .int(flow.id) }
                    return .object(o)
                }
                let flowList = flows.values.sorted { $0.id < $1.id }.map { flow -> JSON in
                    var o = flow.flow.json.objectValue ?? [:]
                    o["id"] = .int(flow.id)
                    if let name = flow.name { o["name"] = .string(name) }
                    return .object(o)
                }
                let effectList = effectTable.sceneRecords.map { record -> JSON in
                    ["id": .int(record.id), "scene": .int(record.scene), "effect": record.effect.json, "status": .string(record.status.rawValue)]
                }
                return ["format": .string(Runtime.snapshotFormat), "scenes": .array(sceneList), "flows": .array(flowList),
                        "effects": .array(effectList),
                        "next": ["scene": .int(nextSceneID), "effect": .int(effectTable.nextID), "flow": .int(nextFlowID)]]
            }
        }
    }

    /// Locks the given scenes' locks (each once, in one global order, so two
    /// snapshots cannot deadlock), runs body, unlocks.
    private func withSceneLocks<T>(_ slots: [SceneSlot], _ body: () -> T) -> T {
        var seen = Set<ObjectIdentifier>()
        let locks = slots.map(\.lock).filter { seen.insert(ObjectIdentifier($0)).inserted }
            .sorted { UInt(bitPattern: ObjectIdentifier($0).hashValue) < UInt(bitPattern: ObjectIdentifier($1).hashValue) }
        for l in locks { pthread_mutex_lock(l.mutex) }
        defer { for l in locks.reversed() { pthread_mutex_unlock(l.mutex) } }
        return body()
    }

    /// Replaces everything open with the snapshot's scenes, flows and effects.
    /// The snapshot is checked whole first: if any part is refused, nothing changes.
    public func restore(_ snapshot: JSON) throws(YaiaError) -> JSON {
        try input({ () throws(YaiaError) in try restore(snapshot, mode: .live) },
                  record: { _ in (.restore(snapshot: snapshot), nil) })
    }

    func restore(_ snapshot: JSON, mode: RestoreMode) throws(YaiaError) -> JSON {
        let image = try SnapshotImage(snapshot, catalog: catalog)
        guard image.scenes.count <= limits.scenes else {
            throw YaiaError.limit("scenes", limits.scenes, "the snapshot has \(image.scenes.count) scenes", at: "/scenes")
        }

        // Build the new world off to the side.
        var newFlows: [Int64: FlowSlot] = [:]
        for f in image.flows { newFlows[f.id] = FlowSlot(id: f.id, name: f.name, flow: f.flow) }
        var newScenes: [Int64: SceneSlot] = [:]
        do throws(YaiaError) {
            for s in image.scenes {
                let flow = try s.flow.map { (id) throws(YaiaError) -> FlowSlot in
                    guard let f = newFlows[id] else { throw YaiaError(.badSnapshot, "scene \(s.id) names flow \(id), which the snapshot lacks") }
                    return f
                }
                let slot = SceneSlot(id: s.id, value: s.value, flow: flow)
                slot.seq = s.seq
                newScenes[s.id] = slot
                flow?.members[s.id] = slot
            }
            for f in newFlows.values {
                for e in f.flow.entries where f.members[e.scene] == nil {
                    throw YaiaError(.badSnapshot, "flow \(f.id) stacks scene \(e.scene), which the snapshot lacks")
                }
            }
            for e in image.effects where newScenes[e.scene] == nil {
                throw YaiaError(.badSnapshot, "effect \(e.id) belongs to scene \(e.scene), which the snapshot lacks")
            }
        } catch {
            // A flow and its scenes hold each other: unlink them, or a refused snapshot leaks them.
            for f in newFlows.values { f.dissolve() }
            throw error
        }

        // Take down what is open now.
        var work = Work()
        let (oldSlots, oldFlows) = try lock.withLock { () throws(YaiaError) -> ([SceneSlot], [FlowSlot]) in
            try checkRunning()
            let old = (Array(scenes.values), Array(flows.values))
            for id in effectTable.removeSceneEffects() {
                if let call = effectCalls.removeValue(forKey: id) { work.cancels.append(call) }
            }
            scenes = newScenes
            flows = newFlows
            nextSceneID = max(nextSceneID, image.nextScene)
            effectTable.advanceNextID(to: image.nextEffect)
            nextFlowID = max(nextFlowID, image.nextFlow)
            return old
        }
        for slot in oldSlots { slot.lock.withLock { slot.closed = true } }
        for flow in oldFlows { flow.dissolve() }

        // Bring the effects back, in id order so keyed queues keep their order.
        var reissued: [JSON] = []
        var awaiting: [JSON] = []
        var cancelled: [Int64] = []
        let now = clock.now
        lock.withLock {
            for e in image.effects {
                let policy = mode == .replay ? .await : e.effect.restore
                let queued = e.status == .queued
                let steps: [EffectTable.Step]
                switch policy {
                case .cancel:
                    // Pending, so that its scene hears of it as of an outcome.
                    steps = effectTable.restore(id: e.id, scene: e.scene, effect: e.effect, queued: false, as: .await(deadline: false),
                                                served: false, now: now)
                    cancelled.append(e.id)
                case .await:
                    steps = effectTable.restore(id: e.id, scene: e.scene, effect: e.effect, queued: queued, as: .await(deadline: mode == .live),
                                                served: false, now: now)
                    awaiting.append(.int(e.id))
                case .reissue:
                    steps = effectTable.restore(id: e.id, scene: e.scene, effect: e.effect, queued: queued, as: .reissue,
                                                served: services[e.effect.service] != nil, now: now)
                    reissued.append(.int(e.id))
                }
                absorb(steps, into: &work)
            }
        }
        // The view models as restored, before reissued effects start or
        // cancellations are delivered.
        let restored = newScenes.values.sorted { $0.id < $1.id }.map { slot in
            slot.lock.withLock { JSON.object(["id": .int(slot.id), "name": .string(slot.value.name), "viewModel": slot.value.viewModel]) }
        }
        run(work)

        // Cancelled effects tell their scenes, as a time-out would; part of
        // this input, so not journaled on their own.
        var more = Work()
        for id in cancelled {
            complete(effectID: id, outcome: .failure(["code": "interrupted",
                                                      "message": .string("effect \(id) was in flight when the snapshot was taken")]),
                     work: &more)
        }
        run(more)
        return ["ok": true, "scenes": .array(restored), "flows": .array(newFlows.keys.sorted().map { JSON.int($0) }),
                "effects": ["reissued": .array(reissued), "cancelled": .array(cancelled.map(JSON.int)), "awaiting": .array(awaiting)]]
    }
}

/// A snapshot, read and checked.
struct SnapshotImage {
    struct Scene {
        let id: Int64
        let seq: Int64
        let flow: Int64?
        let value: any LiveScene
    }

    struct FlowImage {
        let id: Int64
        let name: String?
        let flow: Flow
    }

    struct EffectImage {
        let id: Int64
        let scene: Int64
        let effect: Effect
        let status: EffectTable.Record.Status
    }

    var scenes: [Scene] = []
    var flows: [FlowImage] = []
    var effects: [EffectImage] = []
    var nextScene: Int64 = 1
    var nextEffect: Int64 = 1
    var nextFlow: Int64 = 1

    /// A whole number in `from...to` (`to`: `Runtime.maxID` unless given),
    /// or `bad_snapshot` at `at`.
    static func counter(_ value: JSON?, at: String, from: Int64, to: Int64 = Runtime.maxID,
                        code: ErrorCode = .badSnapshot) throws(YaiaError) -> Int64 {
        guard let value, let n = value.int64Value, n >= from, n <= to else {
            let what = value.map { $0.isNumber ? "\($0)" : $0.kindName } ?? "missing"
            let name = at.split(separator: "/").last.map { "\"\($0)\"" } ?? "a count"
            throw YaiaError(code, "\(name) must be a whole number from \(from) to \(to), not \(what)", at: at)
        }
        return n
    }

    init(_ json: JSON, catalog: Catalog) throws(YaiaError) {
        guard case .object(let o) = json else { throw YaiaError(.badSnapshot, "a snapshot is an object") }
        guard case .string(let format)? = o["format"] else {
            throw YaiaError(.badSnapshot, "the snapshot has no \"format\"", at: "/format")
        }
        guard format == Runtime.snapshotFormat else {
            throw YaiaError(.badSnapshot, "snapshot format \(format) is not compatible with \(Runtime.snapshotFormat)", at: "/format")
        }
        func list(_ key: String) throws(YaiaError) -> [JSON] {
            guard case .array(let a)? = o[key] else { throw YaiaError(.badSnapshot, "the snapshot needs a \"\(key)\" array", at: "/" + key) }
            return a
        }
        for (i, s) in try list("scenes").enumerated() {
            let at = "/scenes/\(i)"
            guard case .string(let name)? = s["name"], s["id"]?.isNumber == true, s["seq"]?.isNumber == true, let state = s["state"] else {
                throw YaiaError(.badSnapshot, "a scene is {\"id\", \"name\", \"seq\", \"state\"}", at: at)
            }
            let id = try SnapshotImage.counter(s["id"], at: at + "/id", from: 1)
            let seq = try SnapshotImage.counter(s["seq"], at: at + "/seq", from: 0)
            let flowID = try s["flow"].map { (v) throws(YaiaError) in try SnapshotImage.counter(v, at: at + "/flow", from: 1) }
            guard let type = catalog[name] else { throw YaiaError(.badSnapshot, "no scene type named \"\(name)\"", at: at + "/name") }
            let value: any LiveScene
            do throws(YaiaError) {
                value = try type.restore(state: state)
            } catch {
                throw YaiaError(.badSnapshot, "the state of scene \(id) (\(name)) is refused: \(error.message)", at: at + "/state" + (error.at ?? ""))
            }
            scenes.append(Scene(id: id, seq: seq, flow: flowID, value: value))
        }
        for (i, f) in try list("flows").enumerated() {
            let at = "/flows/\(i)"
            guard f["id"] != nil else { throw YaiaError(.badSnapshot, "a flow needs an \"id\"", at: at) }
            let id = try SnapshotImage.counter(f["id"], at: at + "/id", from: 1)
            _ = try SnapshotImage.counter(f["version"], at: at + "/version", from: 0)
            if case .array(let entries)? = f["entries"] {
                for (j, entry) in entries.enumerated() where entry["id"] != nil {
                    _ = try SnapshotImage.counter(entry["id"], at: at + "/entries/\(j)/id", from: 1)
                }
            }
            let flow: Flow
            do throws(YaiaError) {
                flow = try Flow(json: f)
            } catch {
                throw YaiaError(.badSnapshot, error.message, at: at)
            }
            flows.append(FlowImage(id: id, name: f["name"]?.stringValue, flow: flow))
        }
        for (i, e) in try list("effects").enumerated() {
            let at = "/effects/\(i)"
            guard e["id"]?.isNumber == true, e["scene"]?.isNumber == true, let effectJSON = e["effect"],
                  case .string(let s)? = e["status"], let status = EffectTable.Record.Status(rawValue: s) else {
                throw YaiaError(.badSnapshot, "an effect is {\"id\", \"scene\", \"effect\", \"status\"}", at: at)
            }
            let id = try SnapshotImage.counter(e["id"], at: at + "/id", from: 1)
            let scene = try SnapshotImage.counter(e["scene"], at: at + "/scene", from: 1)
            let effect: Effect
            do throws(YaiaError) {
                effect = try Effect(json: effectJSON)
            } catch {
                throw YaiaError(.badSnapshot, error.message, at: at + "/effect" + (error.at ?? ""))
            }
            effects.append(EffectImage(id: id, scene: scene, effect: effect, status: status))
        }
        effects.sort { $0.id < $1.id }
        if case .object(let next)? = o["next"] {
            // One past the largest id: a runtime whose ids ran out says so.
            func read(_ key: String) throws(YaiaError) -> Int64 {
                guard let v = next[key] else { return 1 }
                return try SnapshotImage.counter(v, at: "/next/" + key, from: 1, to: Runtime.maxID + 1)
            }
            nextScene = try read("scene")
            nextEffect = try read("effect")
            nextFlow = try read("flow")
        }
        // Ids handed out later must not collide with restored ones.
        nextScene = max(nextScene, (scenes.map(\.id).max() ?? 0) + 1)
        nextEffect = max(nextEffect, (effects.map(\.id).max() ?? 0) + 1)
        nextFlow = max(nextFlow, (flows.map(\.id).max() ?? 0) + 1)
    }
}

import Glibc
