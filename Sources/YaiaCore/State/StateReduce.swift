import YaiaKit

// Reducing an action on a scene: its effects admitted, its routes applied, its update made.

extension RuntimeState {
    /// What one input's reductions carry along: the world, the steps they
    /// leave, and the events of results delivered down a flow, queued after
    /// the update that caused them.
    /// Not generic: a generic context's type would be looked up on every
    /// send; the environment is called a few times at most.
    public struct Reducing {
        public let env: any RuntimeEnvironment
        public var steps: [Step] = []
        var results: [Step] = []
        /// How many results deep the current reduction is.
        var depth = 0
        /// Actions delivered so far by the input (outputs, child messages, args).
        var delivered = 0

        public init(env: any RuntimeEnvironment) { self.env = env }
    }

    /// Runs `body` with a context whose steps are `steps`, moved in and back
    /// out (not copied).
    mutating func reducing<T>(
        env: any RuntimeEnvironment, steps: inout [Step], _ body: (inout RuntimeState, inout Reducing) throws(YaiaError) -> T
    ) throws(YaiaError) -> T {
        var context = Reducing(env: env)
        swap(&context.steps, &steps)
        defer { swap(&context.steps, &steps) }
        return try body(&self, &context)
    }

    /// Reduces `action` on `target` for a request.
    public mutating func send<E: RuntimeEnvironment>(_ target: SendTarget, _ action: Action,
                                                     env: E, steps: inout [Step]) throws(YaiaError) -> Update {
        try send(target, .value(action), env: env, steps: &steps)
    }

    /// Reduces `sent` on `target` for a request: an action as text is built
    /// into a value only for a reader that needs one.
    public mutating func send<E: RuntimeEnvironment>(_ target: SendTarget, _ sent: SentAction,
                                                     env: E, steps: inout [Step]) throws(YaiaError) -> Update {
        let id: Int64
        switch target {
        case .scene(let scene): id = scene
        case .flow(let flow):
            guard let top = flows[flow]?.flow.top.scene, scenes.contains(top) else { throw RuntimeState.noSuchFlow(flow) }
            id = top
        }
        // The steps move into the context and back, as in `reducing`: spelled
        // out on this path, which every send takes.
        var context = Reducing(env: env)
        swap(&context.steps, &steps)
        defer { swap(&context.steps, &steps) }
        // A child whose slot intercepts: its parent gets the action first.
        if !children.isEmpty, let link = scenes[id]?.link, let slot = slot(of: link), slot.intercept {
            return try reduce(link.parent, .value(willSend(try sent.action(), to: link, slot)), cause: .request, in: &context)
        }
        return try reduce(id, sent, cause: .request, in: &context)
    }

    /// `reduce` of an action as a value.
    mutating func reduce(_ id: Int64, _ action: Action, cause: Cause, in context: inout Reducing) throws(YaiaError) -> Update {
        try reduce(id, .value(action), cause: cause, in: &context)
    }

    /// Reduces `action` on scene `id`. Effects are admitted and, in a flow,
    /// routes applied. An update not caused by a request is queued as an
    /// event, in order; a request's is only returned.
    mutating func reduce(_ id: Int64, _ sent: SentAction, cause: Cause, in context: inout Reducing) throws(YaiaError) -> Update {
        if effects.exhausted { throw scenes.contains(id) ? idsExhausted("effect") : RuntimeState.noSuchScene(id) }
        // In place: the scene's state is not copied; the update holds the
        // scene as reduced (the one copy of its value).
        var flowID: Int64?
        var commands: [Command] = []
        let patching = !views.sent.isEmpty && views.sent[id] != nil
        var inFamily = false
        // Read before the state changes. An action sent as text is built
        // only for the inspector, once: the scene is then given that value.
        let inspected = inspecting ? try sent.action() : nil
        let sent = inspected.map { SentAction.value($0) } ?? sent
        var update = try scenes.modify(id, missing: { RuntimeState.noSuchScene(id) }) { (scene) throws(YaiaError) -> Update in
            // A scene with slots or a parent gives no patch of its own: its
            // view is composed and diffed here (familyView), from the view
            // model its reduction writes. A patch asked of it would go unread,
            // and its view model be made a second time when read.
            if patching && !scene.inFamily { scene.value.patchNextReduction() }
            commands = try scene.reduce(sent, env: { context.env.sceneValues })
            flowID = scene.flow
            inFamily = scene.inFamily
            return Update(scene: id, seq: scene.seq, cause: cause, view: .scene(scene.value))
        }
        if inFamily { reduced(below: id) }
        if let inspected {
            var event: JSONObject = ["ok": true, "event": "action", "scene": .int(id), "seq": .int(update.seq), "action": inspected.json]
            if inFamily, let place = place(of: id) {
                event["top"] = .int(place.top)
                event["path"] = place.path
            }
            context.steps.append(.event(.object(event)))
        }
        // A scene in patch mode answers the patch from the view model it last sent.
        if !inFamily, !views.sent.isEmpty, case .scene(let reduced) = update.view {
            update.view = view(of: id, seq: update.seq, reduced)
        }
        // Outputs and actions for children, delivered once this update is made.
        var said: [Command] = []
        for command in commands {
            switch command {
            case .route(let r): update.routes.append(r)
            case .effect(let e):
                update.effects.append(effects.admit(e, scene: id, served: context.env.serves(e.service), now: context.env.now) { context.steps.append(.effect($0)) })
            case .cancel(let key):
                for s in effects.cancel(key: key, scene: id) { context.steps.append(.effect(s)) }
            case .output, .child: said.append(command)
            }
        }
        if let flowID, !update.routes.isEmpty {
            let version = flows[flowID]?.flow.version
            for route in update.routes {
                do throws(YaiaError) {
                    try navigate(flowID, route, from: id, in: &context)
                } catch {
                    update.navigationErrors.append(["route": route.json, "error": error.json])
                }
            }
            if let flow = flows[flowID], flow.flow.version != version {
                update.flow = Update.FlowChange(id: flowID, version: flow.flow.version, stack: stack(of: flow))
            }
        }
        if inFamily || !said.isEmpty { relate(&update, id, said: said, in: &context) }
        if inspecting { inspect(update, steps: &context.steps) }
        switch cause {
        case .request: break
        case .effect: RuntimeState.queue(update, to: &context.steps)
        // A result's update follows the update of the scene that caused it.
        case .result: RuntimeState.queue(update, to: &context.results)
        }
        if context.depth == 0 && !context.results.isEmpty {
            context.steps.append(contentsOf: context.results)
            context.results.removeAll()
        }
        return update
    }

    /// The inspection events of an update: its effects, routes and flow.
    private func inspect(_ update: Update, steps: inout [Step]) {
        for record in update.effects {
            steps.append(.event(["ok": true, "event": "effect", "scene": .int(update.scene), "effect": record.json, "request": record.effect.json]))
        }
        for route in update.routes { steps.append(.event(["ok": true, "event": "route", "scene": .int(update.scene), "route": route.json])) }
        if let flow = update.flow {
            steps.append(.event(["ok": true, "event": "flow", "flow": .int(flow.id), "version": .int(flow.version), "stack": flow.stack]))
        }
    }

    /// The update of scene `id` as it stands, reduced by nothing.
    public func update(_ id: Int64) -> Update? {
        guard let scene = scenes[id] else { return nil }
        var update = Update(scene: id, seq: scene.seq, cause: .request, view: scene.slots.isEmpty ? .scene(scene.value) : .value(viewModel(of: id)))
        if scene.link != nil { update.place = place(of: id) }
        return update
    }

    /// Queues `update` as an event; a warning instead when memory ran out.
    static func queue(_ update: Update, to steps: inout [Step]) {
        var w = JSONWriter()
        update.write(into: &w)
        if let event = w.takeText() {
            steps.append(.eventText(event))
        } else {
            steps.append(.warn("an update was lost: no memory to write it"))
        }
    }
}
