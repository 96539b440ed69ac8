import YaiaKit

// Flows: starting, sending to, popping, linking and closing them, and the routes their scenes take.

extension RuntimeState {
    /// Opens a flow with `value` as its root scene, its scenes' view models
    /// sent in `view` mode (nil: the runtime's); answers the root's update and the stack.
    /// `env` opens its children, if it has any.
    public mutating func startFlow(name: String?, scene type: String, value: any LiveScene, view: ViewMode? = nil,
                                   env: (any RuntimeEnvironment)? = nil) throws(YaiaError) -> JSON {
        try checkSceneRoom()
        guard nextFlowID <= maxID else { throw idsExhausted("flow") }
        let id = try takeID(&nextSceneID, "scene")
        let flowID = try takeID(&nextFlowID, "flow")
        flows[flowID] = OpenFlow(id: flowID, name: name, flow: Flow(root: .init(scene: id, name: type, presentation: .root)))
        scenes[id] = OpenScene(id: id, value: value, flow: flowID)
        started(flow: flowID, view: view)
        let childErrors = attach(id, view: nil, env: env)
        guard var update = update(id), let flow = flows[flowID] else { throw RuntimeState.noSuchFlow(flowID) }
        update.childErrors = childErrors
        update.flow = Update.FlowChange(id: flowID, version: flow.flow.version, stack: stack(of: flow))
        return update.json
    }

    /// `{"ok": true, "flow", "version", "stack"}`.
    public func describe(flow id: Int64) throws(YaiaError) -> JSON {
        guard flows[id] != nil else { throw RuntimeState.noSuchFlow(id) }
        var o: JSONObject = ["ok": true]
        describe(flow: id, into: &o)
        return .object(o)
    }

    /// `flow`, `version` and `stack`, which a UI can render from alone.
    func describe(flow id: Int64, into o: inout JSONObject) {
        guard let flow = flows[id] else { return }
        o["flow"] = .int(id)
        o["version"] = .int(flow.flow.version)
        o["stack"] = stack(of: flow)
    }

    /// A flow's stack: each entry with its scene's view model.
    func stack(of flow: OpenFlow) -> JSON {
        .array(flow.flow.entries.map { e in
            var entry = e.json.objectValue ?? [:]
            entry["viewModel"] = viewModel(of: e.scene)
            return .object(entry)
        })
    }

    /// The UI popped scenes by itself; keeps the first `depth`. A report made
    /// against another `version` than the current one is stale.
    public mutating func popped<E: RuntimeEnvironment>(flow id: Int64, depth: Int, version: Int64?, env: E,
                                                       steps: inout [Step]) throws(YaiaError) -> JSON {
        guard var flow = flows[id]?.flow else { throw RuntimeState.noSuchFlow(id) }
        if let version, version != flow.version {
            throw YaiaError(.staleNavigation, "the report is for version \(version) of flow \(id), which is at version \(flow.version)")
        }
        let flowSteps = try flow.popped(toDepth: depth)
        try reducing(env: env, steps: &steps) { (state, context) throws(YaiaError) in
            try state.perform(flowSteps, flow: id, committing: flow, in: &context)
        }
        return try describe(flow: id)
    }

    /// Builds the stack above the root in one step from a deep link.
    public mutating func link<E: RuntimeEnvironment>(flow id: Int64, path: [(name: String, args: JSON, presentation: Flow.Entry.Presentation)],
                                                     env: E, steps: inout [Step]) throws(YaiaError) -> JSON {
        guard var flow = flows[id]?.flow else { throw RuntimeState.noSuchFlow(id) }
        let first = nextSceneID
        guard first <= maxID - Int64(path.count) + 1 else { throw idsExhausted("scene") }
        let flowSteps = flow.link(path, nextID: &nextSceneID)
        try reducing(env: env, steps: &steps) { (state, context) throws(YaiaError) in
            try state.performOrReturnIDs(first, flowSteps, flow: id, committing: flow, in: &context)
        }
        return try describe(flow: id)
    }

    /// Closes a flow and all its scenes.
    public mutating func close(flow id: Int64, steps: inout [Step]) throws(YaiaError) {
        guard let flow = flows.removeValue(forKey: id) else { throw RuntimeState.noSuchFlow(id) }
        remove(scenes: flow.flow.entries.map(\.scene), steps: &steps)
        forgetViews(scenes: [], flow: id)
    }

    /// Applies a route from scene `source` to its flow.
    mutating func navigate(_ flowID: Int64, _ route: Route, from source: Int64, in context: inout Reducing) throws(YaiaError) {
        guard var flow = flows[flowID]?.flow else { throw RuntimeState.noSuchFlow(flowID) }
        let first = nextSceneID
        // A route opens at most one scene.
        guard first <= maxID else { throw idsExhausted("scene") }
        let flowSteps = try flow.apply(route, from: source, nextID: &nextSceneID)
        try performOrReturnIDs(first, flowSteps, flow: flowID, committing: flow, in: &context)
    }

    /// Performs steps whose scene ids were just taken from `first` on; if
    /// they are refused, the ids go back, so that a refused request leaves
    /// no trace to replay.
    fileprivate mutating func performOrReturnIDs(
        _ first: Int64, _ flowSteps: [Flow.Step], flow: Int64, committing next: Flow, in context: inout Reducing
    ) throws(YaiaError) {
        do throws(YaiaError) {
            try perform(flowSteps, flow: flow, committing: next, in: &context)
        } catch {
            nextSceneID = first
            throw error
        }
    }

    /// Carries out a flow reducer's steps. Scenes to open are made first, so
    /// that an unknown scene or refused arguments leave the flow unchanged.
    fileprivate mutating func perform(
        _ flowSteps: [Flow.Step], flow flowID: Int64, committing next: Flow, in context: inout Reducing
    ) throws(YaiaError) {
        var opened: [Int64: any LiveScene] = [:]
        for case .open(let id, let name, let args) in flowSteps {
            guard case .object = args else { throw YaiaError(.badArgs, "the arguments of \(name) must be an object") }
            opened[id] = try context.env.openScene(name, args: args)
        }
        if !opened.isEmpty { try checkSceneRoom(adding: opened.count) }
        flows[flowID]?.flow = next
        for step in flowSteps {
            switch step {
            case .open(let id, _, _):
                guard let value = opened[id] else { continue }
                scenes[id] = OpenScene(id: id, value: value, flow: flowID)
                for problem in attach(id, view: nil, env: context.env) {
                    context.steps.append(.warn("scene \(id) could not open a child: \(problem)"))
                }
            case .close(let ids):
                remove(scenes: ids, steps: &context.steps)
            case .deliver(let to, let action, let from):
                guard scenes[to]?.flow == flowID else { continue }
                guard context.depth < RuntimeState.maxNavigationDepth else {
                    context.steps.append(.warn("flow \(flowID): results delivered \(RuntimeState.maxNavigationDepth) levels deep; \(action.type) dropped"))
                    continue
                }
                context.depth += 1
                defer { context.depth -= 1 }
                do throws(YaiaError) {
                    _ = try reduce(to, action, cause: .result(from: from), in: &context)
                } catch {
                    context.steps.append(.warn("scene \(to) refused the result of scene \(from): \(error.message)"))
                    context.steps.append(.event(["ok": false, "event": "error", "scene": .int(to), "from": .int(from),
                                         "error": error.nested(under: "/action").json]))
                }
            }
        }
    }

    /// Removes scenes; their effects end without an outcome.
    /// Their children go with them.
    mutating func remove(scenes given: [Int64], steps: inout [Step]) {
        let ids = withDescendants(given)
        forgetChildren(of: ids)
        for id in ids { scenes[id] = nil }
        forgetViews(scenes: ids)
        for s in effects.close(scenes: Set(ids)) { steps.append(.effect(s)) }
    }
}
