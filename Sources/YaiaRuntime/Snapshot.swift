import YaiaCore

/// Snapshots: the whole runtime as one JSON document, and back.
extension Runtime {
    public static let snapshotFormat = RuntimeState.snapshotFormat

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

    /// Flows, scene states, effects in flight and counters, consistent; and
    /// the documents registered by requests, which a restore registers. One
    /// nesting deeper than a restore reads (`Limits.snapshotDepth`) is
    /// refused with `limit_exceeded` (limit "depth"): what is saved restores.
    /// A scene that cannot give its state (a pack's) fails it whole.
    public func snapshot() throws(YaiaError) -> JSON {
        let image = try unboundedSnapshot()
        guard image.nests(within: limits.snapshotDepth) else {
            throw YaiaError.limit("depth", limits.depth, "the snapshot would nest more than \(limits.snapshotDepth) levels, "
                                  + "deeper than a restore reads (a state, arguments or a result nesting more than \(limits.depth))")
        }
        return image
    }

    /// The snapshot, however deep.
    func unboundedSnapshot() throws(YaiaError) -> JSON {
        let snapshot = try lock.withLock { () throws(YaiaError) -> JSON in try state.snapshot() }
        let registered = catalog.registered
        guard !registered.isEmpty, case .object(var o) = snapshot else { return snapshot }
        o["documents"] = .array(registered)
        return .object(o)
    }

    /// Replaces everything open with the snapshot's scenes, flows and effects.
    /// The snapshot is checked whole first: if any part is refused, nothing changes.
    public func restore(_ snapshot: JSON) throws(YaiaError) -> JSON {
        try input({ (work) throws(YaiaError) in try restore(snapshot, mode: .live, work: &work) },
                  record: { _ in (.restore(snapshot: snapshot), nil) })
    }

    func restore(_ snapshot: JSON, mode: RestoreMode, work: inout Work) throws(YaiaError) -> JSON {
        // Its documents join a copy of the catalog, kept once all of it is accepted.
        var catalog = self.catalog
        var added: [DocumentScene] = []
        if let documents = snapshot["documents"] {
            guard case .array(let list) = documents else { throw YaiaError(.badSnapshot, "\"documents\" is an array of scene documents", at: "/documents") }
            for (i, document) in list.enumerated() {
                do throws(YaiaError) {
                    _ = try catalog.register(document, depth: limits.depth, steps: limits.logicSteps, added: &added)
                } catch {
                    throw YaiaError(.badSnapshot, "document \(i) cannot be registered: \(error.message)", at: "/documents/\(i)")
                }
            }
        }
        let image = try CheckedSnapshot(snapshot, catalog: catalog, env: sceneValues())
        let answer = try apply(&work) { (state, env, steps) throws(YaiaError) -> JSON in
            try checkRunning()
            var restored = RuntimeState.Restored(
                scenes: image.scenes.map { RuntimeState.OpenScene(id: $0.id, value: $0.value, seq: $0.seq, flow: $0.flow) },
                flows: image.flows.map { RuntimeState.OpenFlow(id: $0.id, name: $0.name, flow: $0.flow) },
                effects: image.effects.map { RuntimeState.RestoredEffect(id: $0.id, scene: $0.scene, effect: $0.effect, queued: $0.status == .queued) },
                next: (image.nextScene, image.nextEffect, image.nextFlow))
            for scene in image.scenes { if let children = scene.children { restored.children[scene.id] = children } }
            return try state.restore(restored, replaying: mode == .replay, env: env, steps: &steps)
        }
        if !added.isEmpty {
            // Checked already: the scenes join as they are (one registered meanwhile stays).
            catalogBox.withLock { catalog in for scene in added { try? catalog.add(scene, origin: .registered) } }
        }
        return answer
    }
}

/// A snapshot, read and checked.
struct CheckedSnapshot {
    struct Scene {
        let id: Int64
        let seq: Int64
        let flow: Int64?
        let value: any LiveScene
        /// Its children as the snapshot holds them, when it has any.
        let children: JSON?
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
    /// or `bad_snapshot` at `at`, named by the pointer's last token.
    static func counter(_ value: JSON?, at: String, from: Int64, to: Int64 = Runtime.maxID) throws(YaiaError) -> Int64 {
        let name = at.split(separator: "/").last.map(String.init) ?? "count"
        return try MemberReading.integer(value, name, at: at, code: .badSnapshot, in: from...to)
    }

    init(_ json: JSON, catalog: Catalog, env: JSON = [:]) throws(YaiaError) {
        guard case .object(let o) = json else { throw YaiaError(.badSnapshot, "a snapshot is an object") }
        guard case .string(let format)? = o["format"] else {
            throw YaiaError(.badSnapshot, "the snapshot has no \"format\"", at: "/format")
        }
        guard format == Runtime.snapshotFormat else {
            throw YaiaError(.badSnapshot, "snapshot format \(format) is not compatible with \(Runtime.snapshotFormat)", at: "/format")
        }
        func list(_ key: String) throws(YaiaError) -> [JSON] {
            guard case .array(let a)? = o[key] else { throw YaiaError(.badSnapshot, "the snapshot needs a \"\(key)\" array", at: "/" + key) }
            return a.elements
        }
        for (i, s) in try list("scenes").enumerated() {
            let at = "/scenes/\(i)"
            guard case .string(let name)? = s["name"], s["id"]?.isNumber == true, s["seq"]?.isNumber == true, let state = s["state"] else {
                throw YaiaError(.badSnapshot, "a scene is {\"id\", \"name\", \"seq\", \"state\"}", at: at)
            }
            let id = try CheckedSnapshot.counter(s["id"], at: at + "/id", from: 1)
            let seq = try CheckedSnapshot.counter(s["seq"], at: at + "/seq", from: 0)
            let flowID = try s["flow"].map { (v) throws(YaiaError) in try CheckedSnapshot.counter(v, at: at + "/flow", from: 1) }
            guard let type = catalog[name] else { throw YaiaError(.badSnapshot, "no scene type named \"\(name)\"", at: at + "/name") }
            let value: any LiveScene
            do throws(YaiaError) {
                value = try type.restore(state: state, env: env)
            } catch {
                throw YaiaError(.badSnapshot, "the state of scene \(id) (\(name)) is refused: \(error.message)", at: at + "/state" + (error.at ?? ""))
            }
            scenes.append(Scene(id: id, seq: seq, flow: flowID, value: value, children: s["children"]))
        }
        for (i, f) in try list("flows").enumerated() {
            let at = "/flows/\(i)"
            guard f["id"] != nil else { throw YaiaError(.badSnapshot, "a flow needs an \"id\"", at: at) }
            let id = try CheckedSnapshot.counter(f["id"], at: at + "/id", from: 1)
            _ = try CheckedSnapshot.counter(f["version"], at: at + "/version", from: 0)
            if case .array(let entries)? = f["entries"] {
                for (j, entry) in entries.enumerated() where entry["id"] != nil {
                    _ = try CheckedSnapshot.counter(entry["id"], at: at + "/entries/\(j)/id", from: 1)
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
            let id = try CheckedSnapshot.counter(e["id"], at: at + "/id", from: 1)
            let scene = try CheckedSnapshot.counter(e["scene"], at: at + "/scene", from: 1)
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
                return try CheckedSnapshot.counter(v, at: "/next/" + key, from: 1, to: Runtime.maxID + 1)
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
import YaiaKit
