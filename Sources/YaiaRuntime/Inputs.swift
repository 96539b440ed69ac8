import YaiaCore
import YaiaKit

/// The requests that change the runtime's state: each is applied to `state`
/// (which decides) and journaled as one input.
extension Runtime {
    // MARK: scenes

    /// Opens a scene from `args`, or, given a `state`, in that state (as a
    /// snapshot restores it: `bad_state` when the scene refuses it); `view`:
    /// how its view models are sent (nil: the runtime's mode).
    public func open(_ name: String, args: JSON = [:], state initial: JSON? = nil, view: ViewMode? = nil) throws(YaiaError) -> JSON {
        let value = try makeScene(name, args: args, state: initial)
        return try input({ (work) throws(YaiaError) -> JSON in
            try apply(&work) { (state, env, _) throws(YaiaError) -> JSON in
                try checkRunning()
                return try state.open(value, view: view, env: env)
            }
        }, record: { r in (.open(scene: name, args: args, state: initial, id: r["scene"] ?? .null), r) })
    }

    public func send(scene id: Int64, action: Action) throws(YaiaError) -> JSON {
        try answer(.send(.scene(id), .value(action)))
    }

    /// `yaia_send`: the action as the caller's text, checked within the
    /// runtime's limits (its payload built only for a scene that needs it as
    /// a value), and its update written into `writer`.
    public func send(scene id: Int64, actionText text: UnsafeBufferPointer<UInt8>, into writer: inout JSONWriter) throws(YaiaError) {
        try limits.checkSize(text.count)
        let action = try ActionText(parsing: text, maxDepth: limits.depth + Limits.wrapping)
        try reduce(.send(.scene(id), .text(action)), into: &writer)
    }

    /// The scene at `path` (`[SLOT, KEY?, ...]`, docs/composition.md) below
    /// scene `top`; `top` itself when there is no path.
    public func childTarget(of top: Int64, path: JSON?) throws(YaiaError) -> Int64 {
        guard let path else { return top }
        guard case .array(let steps) = path else { throw YaiaError(.badRequest, "\"path\" is a list: [SLOT, KEY?, ...]", at: "/path") }
        return try lock.withLock { () throws(YaiaError) -> Int64 in try state.scene(at: steps.elements, below: top) }
    }

    public func state(scene id: Int64) throws(YaiaError) -> JSON {
        try lock.withLock { () throws(YaiaError) -> JSON in try state.state(scene: id) }
    }

    /// Closes a scene; its effects are cancelled.
    public func close(scene id: Int64) throws(YaiaError) {
        try input({ (work) throws(YaiaError) in
            try apply(&work) { (state, _, steps) throws(YaiaError) in try state.close(scene: id, steps: &steps) }
        }, record: { _ in (.close(scene: id), nil) })
    }

    public func sceneList() -> JSON {
        let (open, flowList) = lock.withLock { state.listing }
        let catalog = self.catalog
        let documents = catalog.documents.compactMap { name in catalog[name]?.origin?.json(scene: name) }
        return ["ok": true, "types": .array(catalog.names.map(JSON.string)), "packs": .array(catalog.packs.map(\.json)),
                "documents": .array(documents), "scenes": .array(open), "flows": .array(flowList)]
    }

    // MARK: flows

    /// Opens a flow with a root scene; answers with the root's update and the stack.
    public func startFlow(name: String?, scene: String, args: JSON, view: ViewMode? = nil) throws(YaiaError) -> JSON {
        let value = try makeScene(scene, args: args)
        return try input({ (work) throws(YaiaError) -> JSON in
            try apply(&work) { (state, env, _) throws(YaiaError) -> JSON in
                try checkRunning()
                return try state.startFlow(name: name, scene: scene, value: value, view: view, env: env)
            }
        }, record: { r in (.start(name: name, scene: scene, args: args), r) })
    }

    /// Sends an action to the top scene of a flow.
    public func send(flow id: Int64, action: Action) throws(YaiaError) -> JSON {
        try answer(.send(.flow(id), .value(action)))
    }

    /// The current stack of a flow.
    public func describeFlow(_ id: Int64) throws(YaiaError) -> JSON {
        try lock.withLock { () throws(YaiaError) -> JSON in try state.describe(flow: id) }
    }

    /// The UI popped scenes by itself; keeps the first `depth`. A report made
    /// against another `version` than the current one is stale.
    public func popped(flow id: Int64, depth: Int, version: Int64?) throws(YaiaError) -> JSON {
        try input({ (work) throws(YaiaError) -> JSON in
            try apply(&work) { (state, env, steps) throws(YaiaError) -> JSON in
                try state.popped(flow: id, depth: depth, version: version, env: env, steps: &steps)
            }
        }, record: { r in (.popped(flow: id, depth: depth), r) })
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
        return try input({ (work) throws(YaiaError) -> JSON in
            try apply(&work) { (state, env, steps) throws(YaiaError) -> JSON in
                try state.link(flow: id, path: items, env: env, steps: &steps)
            }
        }, record: { r in (.link(flow: id, path: path), r) })
    }

    /// Closes a flow and all its scenes.
    public func closeFlow(_ id: Int64) throws(YaiaError) {
        try input({ (work) throws(YaiaError) in
            try apply(&work) { (state, _, steps) throws(YaiaError) in try state.close(flow: id, steps: &steps) }
        }, record: { _ in (.closeFlow(flow: id), nil) })
    }
}

/// An input that reduces a scene: an action sent, or an effect's outcome.
enum Reduction {
    case send(SendTarget, SentAction)
    /// The host's outcome for a pending effect: answered, or thrown when the
    /// scene cannot read it (the effect then stays pending).
    case resolve(effect: Int64, Outcome)
    /// A service's outcome for a live effect: queued as an event, and
    /// written too when `answered` (a replay checks it).
    case complete(effect: Int64, Outcome, answered: Bool)
    /// A deadline may have passed.
    case timeOut(effect: Int64)
}

extension Runtime {
    /// The one path of every input that reduces a scene (`yaia_send`, the
    /// send and resolve requests, flows, services' outcomes, deadlines,
    /// scenarios, simulation, replay): with a journal, under its input lock
    /// and recorded; applied to the state, which answers an `Update`; a
    /// request's update written into `writer` by `Update.write`, the view
    /// model as the scene writes it (a pack's is not parsed), with `tag`,
    /// the request's, among its members.
    func reduce(_ input: Reduction, into writer: inout JSONWriter, tag: JSON? = nil) throws(YaiaError) {
        var work = Work()
        defer { run(work) }
        let journal = journaling.load(ordering: .relaxed) ? lock.withLock { self.journal } : nil
        // The clock is read first: its latency then overlaps the reduction.
        let time = journal == nil ? 0 : Journal.now()
        journal?.lockInput()
        defer { journal?.unlockInput() }
        // Paths that end effects launch through the pool (see `Work.offThread`).
        let offThread = switch input {
        case .complete, .timeOut: true
        case .send, .resolve: false
        }
        try apply(&work, offThread: offThread) { (state, env, steps) throws(YaiaError) in
            switch input {
            case .send(let target, let sent):
                var update = try state.send(target, sent, env: env, steps: &steps)
                update.tag = tag
                let last = update.writeObject(into: &writer)
                journal?.recordSend(target, sent, digest: journal?.digest(of: update, written: writer, last: last), time: time)
            case .resolve(let id, let outcome):
                let update = try state.resolve(effect: id, outcome: outcome, env: env, steps: &steps)
                let last = update.writeObject(into: &writer)
                journal?.record(.outcome(effect: id, outcome), digest: journal?.digest(of: update, written: writer, last: last))
            case .complete(let id, let outcome, let answered):
                let completion = state.complete(effect: id, outcome: outcome, env: env, steps: &steps)
                if answered, case .reduced(let update) = completion { update.write(into: &writer) }
                journal?.record(.outcome(effect: id, outcome), completion)
            case .timeOut(let id):
                let outcome = state.timeoutOutcome(id)
                let completion = state.timeOut(effect: id, outcome: outcome, env: env, steps: &steps)
                journal?.record(.outcome(effect: id, outcome), completion)
            }
        }
    }

    /// `reduce`, answered as a tree (read back from the update's text).
    func answer(_ input: Reduction) throws(YaiaError) -> JSON {
        var writer = JSONWriter()
        try reduce(input, into: &writer)
        return try Runtime.tree(of: writer)
    }

    /// The tree of the text `writer` holds.
    static func tree(of writer: borrowing JSONWriter) throws(YaiaError) -> JSON {
        try writer.withBytes { (bytes) -> Result<JSON, YaiaError> in
            Result { () throws(YaiaError) in try JSONParser.parse(bytes.bindMemory(to: UInt8.self), maxDepth: Limits.maxTextDepth) }
        }.get()
    }
}
