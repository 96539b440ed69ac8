import YaiaKit

// Snapshots: the state written out, and read back with its effects reissued or cancelled.

extension RuntimeState {
    public static let snapshotFormat = "yaia.snapshot/1"

    /// Flows, scene states, effects in flight and counters. Fails when a
    /// scene cannot give its state (a pack's), rather than save what no
    /// restore would read.
    public func snapshot() throws(YaiaError) -> JSON {
        var sceneList: [JSON] = []
        for scene in scenes.values {
            var o: JSONObject = ["id": .int(scene.id), "name": .string(scene.value.name), "seq": .int(scene.seq), "state": try scene.value.json]
            if let flow = scene.flow { o["flow"] = .int(flow) }
            if let slots = children[scene.id] { o["children"] = ChildTable.json(slots) }
            sceneList.append(.object(o))
        }
        let flowList = flows.values.sorted { $0.id < $1.id }.map { flow -> JSON in
            var o = flow.flow.json.objectValue ?? [:]
            o["id"] = .int(flow.id)
            if let name = flow.name { o["name"] = .string(name) }
            return .object(o)
        }
        let effectList = effects.sceneRecords.map { record -> JSON in
            ["id": .int(record.id), "scene": .int(record.scene), "effect": record.effect.json, "status": .string(record.status.rawValue)]
        }
        return ["format": .string(RuntimeState.snapshotFormat), "scenes": .array(sceneList), "flows": .array(flowList),
                "effects": .array(effectList),
                "next": ["scene": .int(nextSceneID), "effect": .int(effects.nextID), "flow": .int(nextFlowID)]]
    }

    /// A restored effect: as in the snapshot.
    public struct RestoredEffect: Sendable {
        public let id: Int64
        public let scene: Int64
        public let effect: Effect
        public let queued: Bool

        public init(id: Int64, scene: Int64, effect: Effect, queued: Bool) {
            self.id = id
            self.scene = scene
            self.effect = effect
            self.queued = queued
        }

        func record(queued: Bool) -> EffectTable.Record {
            EffectTable.Record(id: id, scene: scene, effect: effect, status: queued ? .queued : .pending)
        }
    }

    /// A snapshot's scenes, flows and effects, and the ids to hand out next.
    public struct Restored: Sendable {
        public var scenes: [OpenScene]
        public var flows: [OpenFlow]
        public var effects: [RestoredEffect]
        public var next: (scene: Int64, effect: Int64, flow: Int64)
        /// The `children` of scenes that have any, by parent id, as the
        /// snapshot holds them (ChildTable.json).
        public var children: [Int64: JSON] = [:]

        public init(scenes: [OpenScene], flows: [OpenFlow], effects: [RestoredEffect], next: (scene: Int64, effect: Int64, flow: Int64)) {
            self.scenes = scenes
            self.flows = flows
            self.effects = effects
            self.next = next
        }
    }

    /// Replaces everything open with a snapshot's scenes, flows and effects,
    /// already read and checked whole. `replaying`: effects stay as they
    /// were, waiting for outcomes from a journal; otherwise each effect's own
    /// `restore` policy applies, and those it cancels get `interrupted`.
    public mutating func restore<E: RuntimeEnvironment>(_ image: Restored, replaying: Bool, env: E,
                                                        steps: inout [Step]) throws(YaiaError) -> JSON {
        let (newScenes, newFlows, restored, next) = (image.scenes, image.flows, image.effects, image.next)
        guard newScenes.count <= sceneLimit else {
            throw YaiaError.limit("scenes", sceneLimit, "the snapshot has \(counted(newScenes.count, "scene"))", at: "/scenes")
        }
        var byID: [Int64: OpenScene] = [:]
        for s in newScenes { byID[s.id] = s }
        var flowsByID: [Int64: OpenFlow] = [:]
        for f in newFlows { flowsByID[f.id] = f }
        for s in newScenes {
            if let flow = s.flow, flowsByID[flow] == nil {
                throw YaiaError(.badSnapshot, "scene \(s.id) names flow \(flow), which the snapshot lacks")
            }
        }
        for f in newFlows {
            for e in f.flow.entries where byID[e.scene]?.flow != f.id {
                throw YaiaError(.badSnapshot, "flow \(f.id) stacks scene \(e.scene), which the snapshot lacks")
            }
        }
        for e in restored where byID[e.scene] == nil {
            throw YaiaError(.badSnapshot, "effect \(e.id) belongs to scene \(e.scene), which the snapshot lacks")
        }
        try RuntimeState.link(&byID, children: image.children, depthLimit: childDepthLimit)
        // Take down what is open now.
        for id in effects.removeSceneEffects() { steps.append(.effect(.cancel(id))) }
        scenes = SceneTable(byID)
        children.removeAll()
        for (parent, json) in image.children {
            if let scene = byID[parent] { children[parent] = try? ChildTable.read(json, of: scene, scenes: byID) }
        }
        flows = flowsByID
        nextSceneID = max(nextSceneID, next.scene)
        effects.advanceNextID(to: next.effect)
        nextFlowID = max(nextFlowID, next.flow)
        restartViews()

        // Bring the effects back, in id order so keyed queues keep their order.
        var reissued: [JSON] = []
        var awaiting: [JSON] = []
        var cancelled: [Int64] = []
        let now = env.now
        for e in restored.sorted(by: { $0.id < $1.id }) {
            let effectSteps: [EffectTable.Step]
            switch replaying ? .await : e.effect.restore {
            case .cancel:
                // Pending, so that its scene hears of it as of an outcome.
                effectSteps = effects.restore(e.record(queued: false), as: .await(deadline: false), served: false, now: now)
                cancelled.append(e.id)
            case .await:
                effectSteps = effects.restore(e.record(queued: e.queued), as: .await(deadline: !replaying), served: false, now: now)
                awaiting.append(.int(e.id))
            case .reissue:
                effectSteps = effects.restore(e.record(queued: e.queued), as: .reissue, served: env.serves(e.effect.service), now: now)
                reissued.append(.int(e.id))
            }
            for s in effectSteps { steps.append(.effect(s)) }
        }
        // The view models as restored, before cancellations are delivered;
        // with their seq for scenes in patch mode, whose patches start there.
        let views = scenes.values.map { scene in
            var o: JSONObject = ["id": .int(scene.id), "name": .string(scene.value.name), "viewModel": viewModel(of: scene.id)]
            if inPatchMode(scene.id) { o["seq"] = .int(scene.seq) }
            return JSON.object(o)
        }
        // Cancelled effects tell their scenes, as a time-out would; part of
        // this input, so not journaled on their own.
        for id in cancelled {
            _ = complete(effect: id, outcome: .failure(["code": "interrupted", "message": .string("effect \(id) was in flight when the snapshot was taken")]),
                         env: env, steps: &steps)
        }
        return ["ok": true, "scenes": .array(views), "flows": .array(flows.keys.sorted().map { JSON.int($0) }),
                "effects": ["reissued": .array(reissued), "cancelled": .array(cancelled.map(JSON.int)), "awaiting": .array(awaiting)]]
    }
}
