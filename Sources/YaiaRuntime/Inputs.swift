import YaiaCore
import YaiaKit

/// The requests that change the runtime's state: each is applied to `state`
/// (which decides) and journaled as one input.
extension Runtime {
    // MARK: scenes

    /// Opens a scene from `args`, or, given a `state`, in that state (as a
    /// snapshot restores it: `bad_state` when the scene refuses it).
    public func open(_ name: String, args: JSON = [:], state initial: JSON? = nil) throws(YaiaError) -> JSON {
        let value = try makeScene(name, args: args, state: initial)
        return try input({ (work) throws(YaiaError) -> JSON in
            try apply(&work) { (state, _, _) throws(YaiaError) -> JSON in
                try checkRunning()
                return try state.open(value)
            }
        }, record: { r in (.open(scene: name, args: args, state: initial, id: r["scene"] ?? .null), r) })
    }

    public func send(scene id: Int64, action: Action) throws(YaiaError) -> JSON {
        try input({ (work) throws(YaiaError) -> JSON in
            try apply(&work) { (state, env, steps) throws(YaiaError) -> JSON in
                var stacked = false
                return try state.reduce(id, action, cause: .request, env: env, steps: &steps, stacked: &stacked)
            }
        }, record: { r in (.send(scene: id, action: action), r) })
    }

    /// `send`, with the response written into `writer`, the scene's view
    /// model as the scene writes it (a pack's is not parsed). With a
    /// journal, the bytes written are also what its digest is taken from.
    public func send(scene id: Int64, action: Action, actionText: UnsafeBufferPointer<UInt8>? = nil,
                     into writer: inout JSONWriter) throws(YaiaError) {
        var work = Work()
        defer { run(work) }
        guard journaling.load(ordering: .relaxed), let journal = lock.withLock({ self.journal.map(Unmanaged.passUnretained) }) else {
            try send(scene: id, action: action, actionText: actionText, journal: nil, time: 0, into: &writer, work: &work)
            return
        }
        // The clock is read first: its latency then overlaps the reduction.
        let time = Journal.now()
        let result = journal._withUnsafeGuaranteedRef { journal -> Result<Void, YaiaError> in
            journal.lockInput()
            defer { journal.unlockInput() }
            return Result { () throws(YaiaError) in
                try send(scene: id, action: action, actionText: actionText, journal: journal, time: time, into: &writer, work: &work)
            }
        }
        try result.get()
    }

    private func send(scene id: Int64, action: Action, actionText: UnsafeBufferPointer<UInt8>?, journal: Journal?, time: Int64,
                      into writer: inout JSONWriter, work: inout Work) throws(YaiaError) {
        try apply(&work) { (state, env, steps) throws(YaiaError) in
            var stacked = false
            var closed: RuntimeState.OpenScene?
            var lastMember = 0
            guard var response = try state.reduce(id, action, text: actionText, env: env, steps: &steps, stacked: &stacked,
                                                  closed: &closed, writingInto: &writer, lastMember: &lastMember) else {
                // Written as it was reduced; with no stack, the digest covers the view model.
                journal?.recordSend(scene: id, action: action, actionText: actionText, digest: writer.digestOfObject(from: lastMember), time: time)
                return
            }
            guard let journal else {
                state.write(response, viewModelOf: id, closed: closed, into: &writer)
                return
            }
            // A stack in the response is digested with it: the view model must be there.
            if stacked, case .object(var o) = response {
                o["viewModel"] = closed?.value.viewModel ?? state.scenes[id]?.value.viewModel ?? .null
                response = .object(o)
            }
            // The scenes, not the whole state, go into the closure: a state captured there would be copied.
            let scenes = state.scenes
            journal.recordSend(scene: id, action: action, actionText: actionText, response: response, stacked: stacked,
                               time: time, into: &writer, viewModel: { scenes.writeViewModel(of: id, closed: closed, into: &$0) })
        }
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
    public func startFlow(name: String?, scene: String, args: JSON) throws(YaiaError) -> JSON {
        let value = try makeScene(scene, args: args)
        return try input({ (work) throws(YaiaError) -> JSON in
            try apply(&work) { (state, _, _) throws(YaiaError) -> JSON in
                try checkRunning()
                return try state.startFlow(name: name, scene: scene, value: value)
            }
        }, record: { r in (.start(name: name, scene: scene, args: args), r) })
    }

    /// Sends an action to the top scene of a flow.
    public func send(flow id: Int64, action: Action) throws(YaiaError) -> JSON {
        try input({ (work) throws(YaiaError) -> JSON in
            try apply(&work) { (state, env, steps) throws(YaiaError) -> JSON in
                var stacked = false
                return try state.send(flow: id, action: action, env: env, steps: &steps, stacked: &stacked)
            }
        }, record: { r in (.sendFlow(flow: id, action: action), r) })
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
