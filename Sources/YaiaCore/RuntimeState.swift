/// What a runtime's state asks of the world while it applies an input: the
/// time on the runtime's clock, whether a service is registered, and new
/// scenes of a type (a route opens them). Read only when needed.
public protocol RuntimeEnvironment {
    /// Seconds on the runtime's clock.
    var now: Double { get }
    /// The values scenes read as `env` (docs/scene-documents.md): `now` and
    /// what the host set.
    var sceneValues: JSON { get }
    func serves(_ service: String) -> Bool
    func openScene(_ name: String, args: JSON) throws(YaiaError) -> any LiveScene
}

extension RuntimeEnvironment {
    public var sceneValues: JSON { ["now": .double(now)] }
}

/// A runtime as a value: open scenes (their states and seqs), flows, the
/// effects in flight and the ids to hand out. Each input (a request, an
/// effect's outcome, a deadline) is a function of this value and the
/// environment; it answers, and returns the steps the shell must execute:
/// start or withdraw a service call, arm a deadline, queue an event, answer
/// a direct call. Threads, locks, plugins and clocks are the shell's.
public struct RuntimeState: Sendable {
    /// An open scene.
    public struct OpenScene: Sendable {
        public let id: Int64
        public var value: any LiveScene
        /// Reductions so far.
        public var seq: Int64
        /// The flow it belongs to, if any; fixed at creation.
        public let flow: Int64?

        public init(id: Int64, value: any LiveScene, seq: Int64 = 0, flow: Int64? = nil) {
            self.id = id
            self.value = value
            self.seq = seq
            self.flow = flow
        }

        /// Reduces in place; on error nothing changes. Returns the commands,
        /// the view model (unless `viewModelLater`) and the scene as reduced.
        mutating func reduce(_ action: Action, text: UnsafeBufferPointer<UInt8>?, env: () -> JSON,
                             viewModelLater: Bool) throws(YaiaError) -> (commands: [Command], seq: Int64, flow: Int64?, viewModel: JSON, value: any LiveScene) {
            // An action read without its payload, for scenes that read its text.
            let commands = action.payloadSkipped && !value.readsActionText
                ? try value.reduce(try action.parsingPayload(from: text), text: text, env: env)
                : try value.reduce(action, text: text, env: env)
            seq &+= 1
            return (commands, seq, flow, viewModelLater ? .null : value.viewModel, value)
        }
    }

    /// An open flow.
    public struct OpenFlow: Sendable, Equatable {
        public let id: Int64
        public let name: String?
        public var flow: Flow

        public init(id: Int64, name: String?, flow: Flow) {
            self.id = id
            self.name = name
            self.flow = flow
        }
    }

    /// What the shell must do once the input is applied.
    public enum Step: Sendable, Equatable {
        case effect(EffectTable.Step)
        /// Queue an event for receivers (in this order, before the runtime
        /// takes its next input).
        case event(JSON)
        /// The same, as canonical JSON text: a scene update whose view model
        /// is the scene's own text (a pack's is not parsed and written again).
        case eventText(JSONText)
        /// A scene's effect ended with an outcome: its call is done.
        case ended(Int64)
        /// A direct call ended: its outcome, or nil when it timed out (its
        /// call is then withdrawn too).
        case answer(Int64, Outcome?)
        /// Something worth a warning in the log.
        case warn(String)
    }

    /// Why a scene was reduced: a direct request (answered), or an effect's
    /// outcome or a popped scene's result (queued as an event).
    public enum Cause: Equatable, Sendable {
        case request
        case effect(Int64)
        case result(from: Int64)
    }

    public internal(set) var scenes = SceneTable()
    public internal(set) var flows: [Int64: OpenFlow] = [:]
    public internal(set) var effects: EffectTable
    public internal(set) var nextSceneID: Int64 = 1
    public internal(set) var nextFlowID: Int64 = 1
    /// Queue inspection events (action, effect, route, flow).
    public var inspecting = false
    /// The "scenes" limit: open scenes at most.
    public let sceneLimit: Int
    /// The largest id handed out (2^53: exact in every JSON reader).
    public let maxID: Int64

    /// Results delivered down a flow may navigate again; this bounds the chain.
    public static let maxNavigationDepth = 16

    public init(sceneLimit: Int = 100_000, maxID: Int64 = 1 << 53) {
        self.sceneLimit = sceneLimit
        self.maxID = maxID
        self.effects = EffectTable(maxID: maxID)
    }

    // MARK: scenes

    /// Opens `value` as a new scene; answers its update.
    public mutating func open(_ value: any LiveScene) throws(YaiaError) -> JSON {
        try checkSceneRoom()
        let id = try takeID(&nextSceneID, "scene")
        scenes[id] = OpenScene(id: id, value: value)
        return update(id, effects: [], routes: [], cause: .request)
    }

    /// A scene's state and view model.
    public func state(scene id: Int64) throws(YaiaError) -> JSON {
        guard let scene = scenes[id] else { throw RuntimeState.noSuchScene(id) }
        return ["ok": true, "scene": .int(id), "name": .string(scene.value.name), "seq": .int(scene.seq),
                "state": try scene.value.json, "viewModel": scene.value.viewModel]
    }

    /// Closes a scene outside any flow; its effects end without an outcome.
    public mutating func close(scene id: Int64, steps: inout [Step]) throws(YaiaError) {
        guard let scene = scenes[id] else { throw RuntimeState.noSuchScene(id) }
        if let flow = scene.flow {
            throw YaiaError(.sceneInFlow, "scene \(id) belongs to flow \(flow): navigate (pop, dismiss) or close the flow")
        }
        remove(scenes: [id], steps: &steps)
    }

    /// Open scenes and flows, for `{"op":"scenes"}`.
    public var listing: (scenes: [JSON], flows: [JSON]) {
        let open = scenes.values.map { scene in
            JSON.object(["id": .int(scene.id), "name": .string(scene.value.name), "seq": .int(scene.seq)])
        }
        let flowList = flows.values.sorted { $0.id < $1.id }.map { flow -> JSON in
            var o: JSONObject = ["id": .int(flow.id), "version": .int(flow.flow.version), "depth": .int(Int64(flow.flow.depth))]
            if let name = flow.name { o["name"] = .string(name) }
            return .object(o)
        }
        return (open, flowList)
    }

    // MARK: reducing

    /// Reduces `action` on scene `id`. Effects are admitted and, in a flow,
    /// routes applied; updates not caused by a request become events, in
    /// order. `text` is the action as the caller sent it, when it has it.
    /// `viewModelLater`: the response's view model is left null, its last
    /// member, for the caller to write with `LiveScene.writeViewModel`.
    /// `stacked` is set when a response carries a flow's stack.
    public mutating func reduce<E: RuntimeEnvironment>(
        _ id: Int64, _ action: Action, cause: Cause, env: E, steps: inout [Step], stacked: inout Bool, textEvents: Bool = false
    ) throws(YaiaError) -> JSON {
        var results: [JSON] = []
        var closed: OpenScene?
        return try reduce(id, action, cause: cause, env: env, steps: &steps, stacked: &stacked, results: &results,
                          depth: 0, closed: &closed, viewModelLater: textEvents && cause != .request)
    }

    /// `reduce` of a request whose response goes into `writer`. Without a
    /// route, it is written straight from the reduction, with no tree built,
    /// the scene's view model as the scene writes it: the answer is nil, and
    /// `lastMember` the offset at which its last member (the view model)
    /// begins. Otherwise nothing is written, and the answer is the response,
    /// its view model left null (its last member) for `write(_:viewModelOf:closed:into:)`;
    /// `closed` receives the scene as reduced if its own route closed it, and
    /// `stacked` is set when the response carries a flow's stack.
    public mutating func reduce<E: RuntimeEnvironment>(
        _ id: Int64, _ action: Action, text: UnsafeBufferPointer<UInt8>?, env: E, steps: inout [Step], stacked: inout Bool,
        closed: inout OpenScene?, writingInto writer: inout JSONWriter, lastMember: inout Int
    ) throws(YaiaError) -> JSON? {
        var results: [JSON] = []
        let response = try withUnsafeMutablePointer(to: &writer) { (out) throws(YaiaError) -> JSON in
            try withUnsafeMutablePointer(to: &lastMember) { (last) throws(YaiaError) -> JSON in
                try reduce(id, action, cause: .request, env: env, steps: &steps, stacked: &stacked, results: &results,
                           depth: 0, closed: &closed, text: text, viewModelLater: true, respondInto: out, lastMember: last)
            }
        }
        if case .null = response { return nil }
        return response
    }

    /// Writes a response whose view model was left null, with scene `id`'s
    /// (or `closed`'s) view model in its place, as the scene writes it (a
    /// pack's text as is).
    public func write(_ response: JSON, viewModelOf id: Int64, closed: OpenScene?, into writer: inout JSONWriter) {
        writer.write(response)
        writer.replaceNullAtEnd { scenes.writeViewModel(of: id, closed: closed, into: &$0) }
    }

    private mutating func reduce<E: RuntimeEnvironment>(
        _ id: Int64, _ action: Action, cause: Cause, env: E, steps: inout [Step], stacked: inout Bool, results: inout [JSON],
        depth: Int, closed: inout OpenScene?, text: UnsafeBufferPointer<UInt8>? = nil, viewModelLater: Bool = false,
        respondInto direct: UnsafeMutablePointer<JSONWriter>? = nil, lastMember: UnsafeMutablePointer<Int>? = nil
    ) throws(YaiaError) -> JSON {
        if effects.exhausted { throw scenes.contains(id) ? idsExhausted("effect") : RuntimeState.noSuchScene(id) }
        // In place: the scene's value is not copied.
        guard let (commands, seq, flowID, viewModel, reduced) = try scenes.modify(id, { (scene) throws(YaiaError) in
            try scene.reduce(action, text: text, env: { env.sceneValues }, viewModelLater: viewModelLater)
        }) else {
            throw RuntimeState.noSuchScene(id)
        }
        if inspecting {
            let shown = try action.parsingPayload(from: text)
            steps.append(.event(["ok": true, "event": "action", "scene": .int(id), "seq": .int(seq), "action": shown.json]))
        }
        var routes: [Route] = []
        var emitted = EmittedRecords()
        for command in commands {
            switch command {
            case .route(let r): routes.append(r)
            case .effect(let e):
                emitted.append(effects.admit(e, scene: id, served: env.serves(e.service), now: env.now) { steps.append(.effect($0)) })
            case .cancel(let key):
                for s in effects.cancel(key: key, scene: id) { steps.append(.effect(s)) }
            }
        }
        if !inspecting, routes.isEmpty {
            // Without routes, an update's text is written as it was reduced,
            // with no tree: a request's into the caller's buffer, an outcome's
            // as its event (the caller only needs to know that something was reduced).
            func write(into w: inout JSONWriter) -> Int {
                // The scene as reduced writes its view model: a closure over
                // the state would copy it.
                RuntimeState.writeUpdate(id, seq: seq, effects: emitted, cause: cause, into: &w) { reduced.writeViewModel(into: &$0) }
            }
            if let direct, cause == .request {
                lastMember?.pointee = write(into: &direct.pointee)
                return .null
            }
            if viewModelLater, case .effect = cause {
                var w = JSONWriter()
                _ = write(into: &w)
                appendEvent(w, to: &steps)
                return .object([:])
            }
        }
        var navigationErrors: [JSON] = []
        let version = flowID.flatMap { flows[$0]?.flow.version }
        if let flowID, !routes.isEmpty {
            // As reduced: its own route may close it (pop).
            let before = scenes[id]
            for route in routes {
                do throws(YaiaError) {
                    try navigate(flowID, route, from: id, env: env, steps: &steps, stacked: &stacked, results: &results, depth: depth)
                } catch {
                    navigationErrors.append(["route": route.json, "error": error.json])
                }
            }
            if !scenes.contains(id) { closed = before }
        }
        let records = emitted.all
        var response = RuntimeState.update(id, seq: seq, viewModel: viewModel, effects: records, routes: routes.map(\.json), cause: cause)
        let flowChanged = flowID.map { flows[$0]?.flow.version != version } ?? false
        if inspecting {
            for record in records {
                steps.append(.event(["ok": true, "event": "effect", "scene": .int(id), "effect": record.json, "request": record.effect.json]))
            }
            for route in routes { steps.append(.event(["ok": true, "event": "route", "scene": .int(id), "route": route.json])) }
            if flowChanged, let flowID {
                var o: JSONObject = ["ok": true, "event": "flow"]
                describe(flow: flowID, into: &o)
                steps.append(.event(.object(o)))
            }
        }
        if !navigationErrors.isEmpty || flowChanged, case .object(var o) = response {
            if !navigationErrors.isEmpty { o["navigationErrors"] = .array(navigationErrors) }
            if flowChanged, let flowID {
                describe(flow: flowID, into: &o)
                stacked = true
            }
            response = .object(o)
        }
        if case .result = cause {
            // A result's update follows the update of the scene that caused it.
            results.append(response)
        } else if cause != .request {
            if viewModelLater {
                var w = JSONWriter()
                write(response, viewModelOf: id, closed: closed, into: &w)
                appendEvent(w, to: &steps)
            } else {
                steps.append(.event(response))
            }
        }
        if depth == 0 && !results.isEmpty {
            for event in results { steps.append(.event(event)) }
            results.removeAll()
        }
        return response
    }

    /// A scene update: `{"effects", "ok", "routes", "scene", "seq", "viewModel"}`,
    /// with `effect`, `event` and `from` for updates not asked for.
    public func update(_ id: Int64, effects records: [EffectTable.Record], routes: [JSON], cause: Cause) -> JSON {
        guard let scene = scenes[id] else { return .null }
        return RuntimeState.update(id, seq: scene.seq, viewModel: scene.value.viewModel, effects: records, routes: routes, cause: cause)
    }

    static func update(_ id: Int64, seq: Int64, viewModel: JSON, effects records: [EffectTable.Record], routes: [JSON],
                       cause: Cause) -> JSON {
        // Members in key order, so the object is built without sorting.
        var members: [JSONObject.Member] = []
        members.reserveCapacity(9)
        if case .effect(let effect) = cause { members.append(.init(key: "effect", value: .int(effect))) }
        members.append(.init(key: "effects", value: .array(records.map(\.json))))
        if cause != .request { members.append(.init(key: "event", value: "update")) }
        if case .result(let from) = cause { members.append(.init(key: "from", value: .int(from))) }
        members.append(.init(key: "ok", value: true))
        members.append(.init(key: "routes", value: .array(routes)))
        members.append(.init(key: "scene", value: .int(id)))
        members.append(.init(key: "seq", value: .int(seq)))
        members.append(.init(key: "viewModel", value: viewModel))
        return .object(JSONObject(members: members))
    }

    /// Queues `text` as an event; a warning instead when memory ran out.
    private func appendEvent(_ text: consuming JSONWriter, to steps: inout [Step]) {
        if let event = text.takeText() {
            steps.append(.eventText(event))
        } else {
            steps.append(.warn("an update was lost: no memory to write it"))
        }
    }

    /// Writes the text of `update(...)` for an update without routes, its
    /// view model written by `viewModel`: the same bytes, with no tree built.
    /// Answers the offset at which its last member, the view model, begins.
    @discardableResult
    static func writeUpdate(_ id: Int64, seq: Int64, effects records: borrowing EmittedRecords, cause: Cause,
                            into w: inout JSONWriter, viewModel: (inout JSONWriter) -> Void) -> Int {
        w.raw("{")
        if case .effect(let effect) = cause {
            w.raw("\"effect\":")
            w.writeInteger(effect)
            w.raw(",")
        }
        w.raw("\"effects\":[")
        if let first = records.first {
            first.write(into: &w)
            for record in records.rest {
                w.raw(",")
                record.write(into: &w)
            }
        }
        w.raw("],")
        if cause != .request { w.raw("\"event\":\"update\",") }
        if case .result(let from) = cause {
            w.raw("\"from\":")
            w.writeInteger(from)
            w.raw(",")
        }
        w.raw("\"ok\":true,\"routes\":[],\"scene\":")
        w.writeInteger(id)
        w.raw(",\"seq\":")
        w.writeInteger(seq)
        w.raw(",")
        let last = w.byteCount
        w.raw("\"viewModel\":")
        viewModel(&w)
        w.raw("}")
        return last
    }

    /// The records of the effects one reduction emits, in order. The first,
    /// most often the only one, is kept inline: emitting it allocates nothing.
    struct EmittedRecords {
        var first: EffectTable.Record?
        var rest: [EffectTable.Record] = []

        mutating func append(_ record: EffectTable.Record) {
            if first == nil { first = record } else { rest.append(record) }
        }

        var all: [EffectTable.Record] { first.map { [$0] + rest } ?? [] }
    }

    // MARK: outcomes

    /// The host's outcome for a pending effect. If the scene cannot read the
    /// resulting action, the effect stays pending and the error is thrown.
    public mutating func resolve<E: RuntimeEnvironment>(effect id: Int64, outcome: Outcome, env: E,
                                                        steps: inout [Step], stacked: inout Bool) throws(YaiaError) -> JSON {
        guard let record = effects[id] else {
            if effects.issued(id) {
                throw YaiaError(.effectAlreadyResolved, "effect \(id) is no longer pending: it was resolved, cancelled or timed out, or its scene closed")
            }
            throw YaiaError(.noSuchEffect, "no effect with id \(id)")
        }
        guard record.status == .pending, record.scene != 0 else {
            throw YaiaError(.effectNotPending, "effect \(id) is \(record.status.rawValue): only its service completes it")
        }
        guard let scene = scenes[record.scene] else { throw RuntimeState.noSuchScene(record.scene) }
        let action = record.effect.outcomeAction(outcome)
        if let action { try scene.value.check(action) }
        if let (_, ended) = effects.end(id, served: { env.serves($0) }, now: env.now) {
            steps.append(.ended(id))
            for s in ended { steps.append(.effect(s)) }
        }
        // The effect asked for no action on this outcome: nothing to reduce.
        guard let action else { return update(record.scene, effects: [], routes: [], cause: .request) }
        return try reduce(record.scene, action, cause: .request, env: env, steps: &steps, stacked: &stacked)
    }

    /// A service's outcome for a live effect. Returns the update of the
    /// scene that received it; `{}` when the effect ended but nothing was
    /// reduced; nil when nothing happened (the effect is no longer live, or
    /// it was a direct call, answered by a step): only non-nil is journaled.
    /// `textEvents`: the update's event is text, and the update returned
    /// leaves its view model null (for a caller that only needs to know).
    public mutating func complete<E: RuntimeEnvironment>(effect id: Int64, outcome: Outcome, env: E,
                                                         steps: inout [Step], stacked: inout Bool, textEvents: Bool = false) -> JSON? {
        guard let (record, ended) = effects.end(id, startedOnly: true, served: { env.serves($0) }, now: env.now) else { return nil }
        if record.scene == 0 {
            steps.append(.answer(id, outcome))
            return nil
        }
        steps.append(.ended(id))
        for s in ended { steps.append(.effect(s)) }
        guard scenes.contains(record.scene), let action = record.effect.outcomeAction(outcome) else { return .object([:]) }
        do throws(YaiaError) {
            return try reduce(record.scene, action, cause: .effect(id), env: env, steps: &steps, stacked: &stacked, textEvents: textEvents)
        } catch {
            steps.append(.warn("scene \(record.scene) refused the outcome of effect \(id): \(error.message)"))
            steps.append(.event(["ok": false, "event": "error", "scene": .int(record.scene), "effect": .int(id),
                                 "error": error.nested(under: "/action").json]))
            return .object([:])
        }
    }

    /// The time-out outcome of effect `id`.
    public func timeoutOutcome(_ id: Int64) -> Outcome {
        let what = effects[id].map { " (\($0.effect.service).\($0.effect.op))" } ?? ""
        return .failure(["code": .string(ErrorCode.timeout.rawValue), "message": .string("effect \(id)\(what) timed out")])
    }

    /// Whether effect `id`'s deadline has passed at `now`.
    public func isDue(_ id: Int64, at now: Double) -> Bool {
        guard let record = effects[id], record.status != .queued, let deadline = record.deadline else { return false }
        return deadline <= now
    }

    /// Effect `id`'s deadline passed: its call is withdrawn and its catch
    /// action gets `outcome` (`timeoutOutcome`); a direct call's caller gives
    /// up. As `complete`, nil when nothing is journaled.
    public mutating func timeOut<E: RuntimeEnvironment>(effect id: Int64, outcome: Outcome, env: E, steps: inout [Step],
                                                        stacked: inout Bool, textEvents: Bool = false) -> JSON? {
        guard isDue(id, at: env.now), let record = effects[id] else { return nil }
        if record.scene == 0 {
            _ = effects.end(id, served: { env.serves($0) }, now: env.now)
            steps.append(.answer(id, nil))
            return nil
        }
        steps.append(.effect(.cancel(id)))
        return complete(effect: id, outcome: outcome, env: env, steps: &steps, stacked: &stacked, textEvents: textEvents)
    }

    // MARK: flows

    /// Opens a flow with `value` as its root scene; answers the root's update and the stack.
    public mutating func startFlow(name: String?, scene type: String, value: any LiveScene) throws(YaiaError) -> JSON {
        try checkSceneRoom()
        guard nextFlowID <= maxID else { throw idsExhausted("flow") }
        let id = try takeID(&nextSceneID, "scene")
        let flowID = try takeID(&nextFlowID, "flow")
        flows[flowID] = OpenFlow(id: flowID, name: name, flow: Flow(root: .init(scene: id, name: type, presentation: .root)))
        scenes[id] = OpenScene(id: id, value: value, flow: flowID)
        var o = update(id, effects: [], routes: [], cause: .request).objectValue ?? [:]
        describe(flow: flowID, into: &o)
        return .object(o)
    }

    /// Reduces `action` on the top scene of flow `id`.
    public mutating func send<E: RuntimeEnvironment>(flow id: Int64, action: Action, env: E, steps: inout [Step],
                                                     stacked: inout Bool) throws(YaiaError) -> JSON {
        guard let flow = flows[id], scenes.contains(flow.flow.top.scene) else { throw RuntimeState.noSuchFlow(id) }
        return try reduce(flow.flow.top.scene, action, cause: .request, env: env, steps: &steps, stacked: &stacked)
    }

    /// `{"ok": true, "flow", "version", "stack"}`.
    public func describe(flow id: Int64) throws(YaiaError) -> JSON {
        guard flows[id] != nil else { throw RuntimeState.noSuchFlow(id) }
        var o: JSONObject = ["ok": true]
        describe(flow: id, into: &o)
        return .object(o)
    }

    /// `flow`, `version` and `stack` (each entry with its view model), which a
    /// UI can render from alone.
    func describe(flow id: Int64, into o: inout JSONObject) {
        guard let flow = flows[id] else { return }
        o["flow"] = .int(id)
        o["version"] = .int(flow.flow.version)
        o["stack"] = .array(flow.flow.entries.map { e in
            var entry = e.json.objectValue ?? [:]
            entry["viewModel"] = scenes[e.scene]?.value.viewModel ?? .null
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
        var stacked = false
        var results: [JSON] = []
        try perform(flowSteps, flow: id, committing: flow, env: env, steps: &steps, stacked: &stacked, results: &results, depth: 0)
        return try describe(flow: id)
    }

    /// Builds the stack above the root in one step from a deep link.
    public mutating func link<E: RuntimeEnvironment>(flow id: Int64, path: [(name: String, args: JSON, presentation: Flow.Entry.Presentation)],
                                                     env: E, steps: inout [Step]) throws(YaiaError) -> JSON {
        guard var flow = flows[id]?.flow else { throw RuntimeState.noSuchFlow(id) }
        let first = nextSceneID
        guard first <= maxID - Int64(path.count) + 1 else { throw idsExhausted("scene") }
        let flowSteps = flow.link(path, nextID: &nextSceneID)
        var stacked = false
        var results: [JSON] = []
        try performOrReturnIDs(first, flowSteps, flow: id, committing: flow, env: env, steps: &steps, stacked: &stacked,
                               results: &results, depth: 0)
        return try describe(flow: id)
    }

    /// Closes a flow and all its scenes.
    public mutating func close(flow id: Int64, steps: inout [Step]) throws(YaiaError) {
        guard let flow = flows.removeValue(forKey: id) else { throw RuntimeState.noSuchFlow(id) }
        remove(scenes: flow.flow.entries.map(\.scene), steps: &steps)
    }

    /// Applies a route from scene `source` to its flow.
    private mutating func navigate<E: RuntimeEnvironment>(_ flowID: Int64, _ route: Route, from source: Int64, env: E, steps: inout [Step],
                                                          stacked: inout Bool, results: inout [JSON], depth: Int) throws(YaiaError) {
        guard var flow = flows[flowID]?.flow else { throw RuntimeState.noSuchFlow(flowID) }
        let first = nextSceneID
        // A route opens at most one scene.
        guard first <= maxID else { throw idsExhausted("scene") }
        let flowSteps = try flow.apply(route, from: source, nextID: &nextSceneID)
        try performOrReturnIDs(first, flowSteps, flow: flowID, committing: flow, env: env, steps: &steps, stacked: &stacked,
                               results: &results, depth: depth)
    }

    /// Performs steps whose scene ids were just taken from `first` on; if
    /// they are refused, the ids go back, so that a refused request leaves
    /// no trace to replay.
    private mutating func performOrReturnIDs<E: RuntimeEnvironment>(
        _ first: Int64, _ flowSteps: [Flow.Step], flow: Int64, committing next: Flow, env: E, steps: inout [Step],
        stacked: inout Bool, results: inout [JSON], depth: Int
    ) throws(YaiaError) {
        do throws(YaiaError) {
            try perform(flowSteps, flow: flow, committing: next, env: env, steps: &steps, stacked: &stacked, results: &results, depth: depth)
        } catch {
            nextSceneID = first
            throw error
        }
    }

    /// Carries out a flow reducer's steps. Scenes to open are made first, so
    /// that an unknown scene or refused arguments leave the flow unchanged.
    private mutating func perform<E: RuntimeEnvironment>(
        _ flowSteps: [Flow.Step], flow flowID: Int64, committing next: Flow, env: E, steps: inout [Step],
        stacked: inout Bool, results: inout [JSON], depth: Int
    ) throws(YaiaError) {
        var opened: [Int64: any LiveScene] = [:]
        for case .open(let id, let name, let args) in flowSteps {
            guard case .object = args else { throw YaiaError(.badArgs, "the arguments of \(name) must be an object") }
            opened[id] = try env.openScene(name, args: args)
        }
        if !opened.isEmpty { try checkSceneRoom(adding: opened.count) }
        flows[flowID]?.flow = next
        for step in flowSteps {
            switch step {
            case .open(let id, _, _):
                guard let value = opened[id] else { continue }
                scenes[id] = OpenScene(id: id, value: value, flow: flowID)
            case .close(let ids):
                remove(scenes: ids, steps: &steps)
            case .deliver(let to, let action, let from):
                guard scenes[to]?.flow == flowID else { continue }
                guard depth < RuntimeState.maxNavigationDepth else {
                    steps.append(.warn("flow \(flowID): results delivered \(RuntimeState.maxNavigationDepth) levels deep; \(action.type) dropped"))
                    continue
                }
                do throws(YaiaError) {
                    var closed: OpenScene?
                    _ = try reduce(to, action, cause: .result(from: from), env: env, steps: &steps, stacked: &stacked,
                                   results: &results, depth: depth + 1, closed: &closed)
                } catch {
                    steps.append(.warn("scene \(to) refused the result of scene \(from): \(error.message)"))
                    steps.append(.event(["ok": false, "event": "error", "scene": .int(to), "from": .int(from),
                                         "error": error.nested(under: "/action").json]))
                }
            }
        }
    }

    /// Removes scenes; their effects end without an outcome.
    private mutating func remove(scenes ids: [Int64], steps: inout [Step]) {
        for id in ids { scenes[id] = nil }
        for s in effects.close(scenes: Set(ids)) { steps.append(.effect(s)) }
    }

    // MARK: direct calls

    /// A call outside any scene, with a deadline `timeout` seconds from now.
    public mutating func direct(_ effect: Effect, timeout: Double, now: Double) -> (Int64, [Step]) {
        let (record, effectSteps) = effects.direct(effect, timeout: timeout, now: now)
        return (record.id, effectSteps.map(Step.effect))
    }

    // MARK: snapshots

    public static let snapshotFormat = "yaia.snapshot/1"

    /// Flows, scene states, effects in flight and counters. Fails when a
    /// scene cannot give its state (a pack's), rather than save what no
    /// restore would read.
    public func snapshot() throws(YaiaError) -> JSON {
        var sceneList: [JSON] = []
        for scene in scenes.values {
            var o: JSONObject = ["id": .int(scene.id), "name": .string(scene.value.name), "seq": .int(scene.seq), "state": try scene.value.json]
            if let flow = scene.flow { o["flow"] = .int(flow) }
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
    }

    /// Replaces everything open with a snapshot's scenes, flows and effects,
    /// already read and checked whole. `replaying`: effects stay as they
    /// were, waiting for outcomes from a journal; otherwise each effect's own
    /// `restore` policy applies, and those it cancels get `interrupted`.
    public mutating func restore<E: RuntimeEnvironment>(
        scenes newScenes: [OpenScene], flows newFlows: [OpenFlow], effects restored: [RestoredEffect],
        next: (scene: Int64, effect: Int64, flow: Int64), replaying: Bool, env: E, steps: inout [Step]
    ) throws(YaiaError) -> JSON {
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
        // Take down what is open now.
        for id in effects.removeSceneEffects() { steps.append(.effect(.cancel(id))) }
        scenes = SceneTable(byID)
        flows = flowsByID
        nextSceneID = max(nextSceneID, next.scene)
        effects.advanceNextID(to: next.effect)
        nextFlowID = max(nextFlowID, next.flow)

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
                effectSteps = effects.restore(id: e.id, scene: e.scene, effect: e.effect, queued: false, as: .await(deadline: false),
                                              served: false, now: now)
                cancelled.append(e.id)
            case .await:
                effectSteps = effects.restore(id: e.id, scene: e.scene, effect: e.effect, queued: e.queued,
                                              as: .await(deadline: !replaying), served: false, now: now)
                awaiting.append(.int(e.id))
            case .reissue:
                effectSteps = effects.restore(id: e.id, scene: e.scene, effect: e.effect, queued: e.queued, as: .reissue,
                                              served: env.serves(e.effect.service), now: now)
                reissued.append(.int(e.id))
            }
            for s in effectSteps { steps.append(.effect(s)) }
        }
        // The view models as restored, before cancellations are delivered.
        let views = scenes.values.map { scene in
            JSON.object(["id": .int(scene.id), "name": .string(scene.value.name), "viewModel": scene.value.viewModel])
        }
        // Cancelled effects tell their scenes, as a time-out would; part of
        // this input, so not journaled on their own.
        var stacked = false
        for id in cancelled {
            _ = complete(effect: id, outcome: .failure(["code": "interrupted", "message": .string("effect \(id) was in flight when the snapshot was taken")]),
                         env: env, steps: &steps, stacked: &stacked)
        }
        return ["ok": true, "scenes": .array(views), "flows": .array(flows.keys.sorted().map { JSON.int($0) }),
                "effects": ["reissued": .array(reissued), "cancelled": .array(cancelled.map(JSON.int)), "awaiting": .array(awaiting)]]
    }

    // MARK: ids and limits

    /// Hands out the id `counter` holds and counts on; `ids_exhausted` past `maxID`.
    private func takeID(_ counter: inout Int64, _ kind: String) throws(YaiaError) -> Int64 {
        guard counter <= maxID else { throw idsExhausted(kind) }
        defer { counter += 1 }
        return counter
    }

    func idsExhausted(_ kind: String) -> YaiaError {
        YaiaError(.idsExhausted, "no \(kind) ids are left: ids end at \(maxID)")
    }

    /// `limit_exceeded` when more scenes would pass the "scenes" limit.
    func checkSceneRoom(adding count: Int = 1) throws(YaiaError) {
        guard scenes.count + count <= sceneLimit else {
            throw YaiaError.limit("scenes", sceneLimit, "\(counted(scenes.count, "scene")) \(scenes.count == 1 ? "is" : "are") open")
        }
    }

    public static func noSuchScene(_ id: Int64) -> YaiaError {
        YaiaError(.noSuchScene, "no open scene with id \(id)")
    }

    public static func noSuchFlow(_ id: Int64) -> YaiaError {
        YaiaError(.noSuchFlow, "no flow with id \(id)")
    }
}
