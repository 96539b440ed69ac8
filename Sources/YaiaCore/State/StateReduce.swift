import YaiaKit

// Reducing an action on a scene: its effects admitted, its routes applied, its updates written.

extension RuntimeState {
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

    mutating func reduce<E: RuntimeEnvironment>(
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
}
