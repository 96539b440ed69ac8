import YaiaCore

/// A live flow: the Flow value plus its scenes. Its lock is shared by those
/// scenes, and guards `flow` and `members`.
final class FlowSlot: @unchecked Sendable {
    let id: Int64
    let name: String?
    let lock = Lock()
    var flow: Flow
    var members: [Int64: SceneSlot] = [:]

    init(id: Int64, name: String?, flow: Flow) {
        self.id = id
        self.name = name
        self.flow = flow
    }

    /// `flow`, `version` and `stack` (each entry with its view model), which a
    /// UI can render from alone. Caller holds `lock`.
    func describe(into o: inout JSONObject) {
        o["flow"] = .int(id)
        o["version"] = .int(flow.version)
        o["stack"] = .array(flow.entries.map { e in
            var entry = e.json.objectValue ?? [:]
            entry["viewModel"] = members[e.scene]?.value.viewModel ?? .null
            return .object(entry)
        })
    }

    var response: JSON {
        var o: JSONObject = ["ok": true]
        describe(into: &o)
        return .object(o)
    }

    /// Closes the scenes and lets go of them (they refer back to the flow).
    func dissolve() {
        lock.withLock {
            for slot in members.values { slot.closed = true }
            members.removeAll()
        }
    }
}

/// Results delivered down a flow may navigate again; this bounds the chain.
private let maxNavigationDepth = 16

extension Runtime {
    // MARK: requests

    /// Opens a flow with a root scene; answers with the root's update and the stack.
    public func startFlow(name: String?, scene: String, args: JSON) throws(YaiaError) -> JSON {
        let value = try sceneType(scene).open(args: args)
        return try input({ () throws(YaiaError) -> JSON in try installFlow(name: name, scene: scene, value: value) },
                         record: { r in (.start(name: name, scene: scene, args: args), r) })
    }

    private func installFlow(name: String?, scene: String, value: any LiveScene) throws(YaiaError) -> JSON {
        let (flow, slot) = try lock.withLock { () throws(YaiaError) -> (FlowSlot, SceneSlot) in
            try checkRunning()
            try checkSceneRoom()
            guard nextFlowID <= Runtime.maxID else { throw Runtime.idsExhausted("flow") }
            let id = try takeID(&nextSceneID, "scene")
            let flow = FlowSlot(id: try takeID(&nextFlowID, "flow"), name: name,
                                flow: Flow(root: .init(scene: id, name: scene, presentation: .root)))
            let slot = SceneSlot(id: id, value: value, flow: flow)
            flow.members[id] = slot
            scenes[id] = slot
            flows[flow.id] = flow
            return (flow, slot)
        }
        return flow.lock.withLock {
            var o = update(slot, effects: [], routes: [], cause: .request).objectValue ?? [:]
            flow.describe(into: &o)
            return .object(o)
        }
    }

    /// Sends an action to the top scene of a flow.
    public func send(flow id: Int64, action: Action) throws(YaiaError) -> JSON {
        let flow = try self.flow(id)
        var work = Work()
        let response = try input({ () throws(YaiaError) -> JSON in
            try flow.lock.withLock { () throws(YaiaError) -> JSON in
                guard let top = flow.members[flow.flow.top.scene] else { throw noSuchFlow(id) }
                return try reduceLocked(top, action, cause: .request, work: &work)
            }
        }, record: { r in (.sendFlow(flow: id, action: action), r) })
        run(work)
        return response
    }

    /// The current stack of a flow.
    public func describeFlow(_ id: Int64) throws(YaiaError) -> JSON {
        let flow = try self.flow(id)
        return flow.lock.withLock { flow.response }
    }

    /// The UI popped scenes by itself; keeps the first `depth`. A report made
    /// against another `version` than the current one is stale.
    public func popped(flow id: Int64, depth: Int, version: Int64?) throws(YaiaError) -> JSON {
        let flow = try self.flow(id)
        var work = Work()
        let response = try input({ () throws(YaiaError) -> JSON in try flow.lock.withLock { () throws(YaiaError) -> JSON in
            if let version, version != flow.flow.version {
                throw YaiaError(.staleNavigation, "the report is for version \(version) of flow \(id), which is at version \(flow.flow.version)")
            }
            var copy = flow.flow
            let steps = try copy.popped(toDepth: depth)
            try perform(steps, in: flow, committing: copy, work: &work, depth: 0)
            return flow.response
        } }, record: { r in (.popped(flow: id, depth: depth), r) })
        run(work)
        return response
    }

    /// Builds the stack above the root in one step from a deep link:
    /// `[NAME | {"scene", "args", "presentation"}]`.
    public func link(flow id: Int64, path: [JSON]) throws(YaiaError) -> JSON {
        var items: [(name: String, args: JSON, presentation: Flow.Entry.Presentation)] = []
        for (i, item) in path.enumerated() {
            let at = JSONPointer.appending("/path", i)
            switch item {
            case .string(let name): items.append((name, [:], .push))
            case .object(let o):
                guard case .string(let name)? = o["scene"] else {
                    throw YaiaError(.badRequest, "a link item needs a \"scene\"", at: at + "/scene")
                }
                let args = o["args"] ?? [:]
                guard case .object = args else { throw YaiaError(.notAnObject, "\"args\" must be an object", at: at + "/args") }
                var presentation = Flow.Entry.Presentation.push
                if let p = o["presentation"] {
                    guard case .string(let s) = p, let known = Flow.Entry.Presentation(rawValue: s), known != .root else {
                        throw YaiaError(.badRequest, "\"presentation\" is push or present", at: at + "/presentation")
                    }
                    presentation = known
                }
                items.append((name, args, presentation))
            default:
                throw YaiaError(.badRequest, "a link item is a scene name or {\"scene\", \"args\", \"presentation\"}", at: at)
            }
        }
        let flow = try self.flow(id)
        var work = Work()
        let response = try input({ () throws(YaiaError) -> JSON in try flow.lock.withLock { () throws(YaiaError) -> JSON in
            var copy = flow.flow
            let ids = try lock.withLock { () throws(YaiaError) -> (Int64, [Flow.Step], Int64) in
                let first = nextSceneID
                guard first <= Runtime.maxID - Int64(items.count) + 1 else { throw Runtime.idsExhausted("scene") }
                let steps = copy.link(items, nextID: &nextSceneID)
                return (first, steps, nextSceneID)
            }
            try performOrReturnIDs(ids, in: flow, committing: copy, work: &work, depth: 0)
            return flow.response
        } }, record: { r in (.link(flow: id, path: path), r) })
        run(work)
        return response
    }

    /// Closes a flow and all its scenes.
    public func closeFlow(_ id: Int64) throws(YaiaError) {
        try input({ () throws(YaiaError) in try removeFlow(id) }, record: { _ in (.closeFlow(flow: id), nil) })
    }

    private func removeFlow(_ id: Int64) throws(YaiaError) {
        let flow = try lock.withLock { () throws(YaiaError) -> FlowSlot in
            guard let flow = flows.removeValue(forKey: id) else { throw noSuchFlow(id) }
            return flow
        }
        var work = Work()
        flow.lock.withLock {
            close(Array(flow.members.keys), in: flow, work: &work)
        }
        run(work)
    }

    // MARK: navigation (caller holds the flow's lock)

    /// Applies a route from `source` to its flow.
    func navigate(_ flow: FlowSlot, _ route: Route, from source: SceneSlot, work: inout Work, depth: Int) throws(YaiaError) {
        var copy = flow.flow
        let ids = try lock.withLock { () throws(YaiaError) -> (Int64, [Flow.Step], Int64) in
            let first = nextSceneID
            // A route opens at most one scene.
            guard first <= Runtime.maxID else { throw Runtime.idsExhausted("scene") }
            let steps = try copy.apply(route, from: source.id, nextID: &nextSceneID)
            return (first, steps, nextSceneID)
        }
        try performOrReturnIDs(ids, in: flow, committing: copy, work: &work, depth: depth)
    }

    /// Performs steps whose scene ids were just taken; if they are refused,
    /// the ids go back (when no one took others since, as is always so under
    /// a journal), so that a refused request leaves no trace to replay.
    private func performOrReturnIDs(_ ids: (first: Int64, steps: [Flow.Step], end: Int64), in flow: FlowSlot, committing next: Flow,
                                    work: inout Work, depth: Int) throws(YaiaError) {
        do throws(YaiaError) {
            try perform(ids.steps, in: flow, committing: next, work: &work, depth: depth)
        } catch {
            lock.withLock { if nextSceneID == ids.end { nextSceneID = ids.first } }
            throw error
        }
    }

    /// Carries out a flow reducer's steps. Scenes to open are made first, so
    /// that an unknown scene or refused arguments leave the flow unchanged.
    func perform(_ steps: [Flow.Step], in flow: FlowSlot, committing next: Flow, work: inout Work, depth: Int) throws(YaiaError) {
        var opened: [Int64: any LiveScene] = [:]
        for case .open(let id, let name, let args) in steps {
            let type = try sceneType(name)
            guard case .object = args else { throw YaiaError(.badArgs, "the arguments of \(name) must be an object") }
            opened[id] = try type.open(args: args)
        }
        if !opened.isEmpty { try lock.withLock { () throws(YaiaError) in try checkSceneRoom(adding: opened.count) } }
        flow.flow = next
        for step in steps {
            switch step {
            case .open(let id, _, _):
                guard let value = opened[id] else { continue }
                let slot = SceneSlot(id: id, value: value, flow: flow)
                flow.members[id] = slot
                lock.withLock { scenes[id] = slot }
            case .close(let ids):
                close(ids, in: flow, work: &work)
            case .deliver(let to, let action, let from):
                guard let target = flow.members[to] else { continue }
                guard depth < maxNavigationDepth else {
                    Log.write(.warning, "runtime", "flow \(flow.id): results delivered \(maxNavigationDepth) levels deep; \(action.type) dropped")
                    continue
                }
                do throws(YaiaError) {
                    _ = try reduceLocked(target, action, cause: .result(from: from), work: &work, depth: depth + 1)
                } catch {
                    Log.write(.warning, "runtime", "scene \(to) refused the result of scene \(from): \(error.message)")
                    events.push(["ok": false, "event": "error", "scene": .int(to), "from": .int(from),
                                 "error": error.nested(under: "/action").json])
                    work.notify = true
                }
            }
        }
    }

    /// Closes scenes of a flow; their effects are cancelled.
    private func close(_ ids: [Int64], in flow: FlowSlot, work: inout Work) {
        for id in ids {
            flow.members.removeValue(forKey: id)?.closed = true
        }
        lock.withLock {
            let closing = Set(ids)
            for id in ids { scenes[id] = nil }
            absorb(effectTable.close(scenes: closing), into: &work)
        }
    }

    func flow(_ id: Int64) throws(YaiaError) -> FlowSlot {
        guard let flow = lock.withLock({ flows[id] }) else { throw noSuchFlow(id) }
        return flow
    }

    func noSuchFlow(_ id: Int64) -> YaiaError {
        YaiaError(.noSuchFlow, "no flow with id \(id)")
    }
}
