import YaiaKit

// Child scenes (docs/composition.md): opened, kept and closed with their
// parent's state, spoken to across the boundary as actions, and their view
// models placed in their parent's.

extension RuntimeState {
    /// A scene just put in the table: its children opened (recursively),
    /// then its view model sent from. Answers the problems of children that
    /// could not open.
    mutating func attach(_ id: Int64, view mode: ViewMode?, env: (any RuntimeEnvironment)?) -> [JSON] {
        var problems: [JSON] = []
        if let slots = scenes[id]?.slots, !slots.isEmpty {
            // Its children take its mode.
            if let mode, mode != views.mode { views.sceneModes[id] = mode }
            if let env {
                var context = Reducing(env: env)
                problems = reconcile(id, in: &context)
            } else {
                problems = [RuntimeState.childProblem(nil, .null, YaiaError(.internal, "no environment to open the children of scene \(id)"))]
            }
        }
        startViews(of: id, view: mode)
        return problems
    }

    /// What a reduction of a scene with slots or a parent does beyond its
    /// own: its children reconciled with its state, its view model composed
    /// (and patched), its place given, then what it said delivered: outputs
    /// to its parent, actions to its children, changed args to kept children.
    /// Delivered last, so that their updates follow this one's.
    mutating func relate(_ update: inout Update, _ id: Int64, said: [Command], in context: inout Reducing) {
        guard let scene = scenes[id] else { return }
        var argsChanged: [(Int64, Action)] = []
        if !scene.slots.isEmpty { update.childErrors = reconcile(id, argsChanged: &argsChanged, in: &context) }
        if scene.link != nil { update.place = place(of: id) }
        // A lone scene here only for an output with nowhere to go keeps the view its update made.
        if !scene.slots.isEmpty || scene.link != nil { update.view = familyView(of: id, seq: update.seq, scene.value) }
        for (child, action) in argsChanged { deliver(action, to: child, from: id, in: &context) }
        for command in said {
            switch command {
            case .output(let output):
                guard let link = scene.link, let slot = slot(of: link) else {
                    context.steps.append(.warn("scene \(id) has no parent: its output \(output.type) goes nowhere"))
                    continue
                }
                guard let type = slot.outputs[output.type] else {
                    context.steps.append(.warn("slot \"\(slot.name)\" of scene \(link.parent) maps no output \(output.type) of scene \(id)"))
                    continue
                }
                var payload: JSONObject = [:]
                if slot.kind == .keyed { payload["key"] = link.key }
                if let p = output.payload { payload["output"] = p }
                deliver(Action(type, payload: .object(payload)), to: link.parent, from: id, in: &context)
            case .child(let message):
                guard let child = children.child(of: id, slot: message.slot, key: message.key) else {
                    update.childErrors.append(RuntimeState.childProblem(message.slot, message.key, noSuchChild(id, message.slot, message.key)))
                    continue
                }
                deliver(message.action, to: child, from: id, in: &context)
            default: continue
            }
        }
    }

    /// Actions one input may deliver: one to each child a parent may hold
    /// (its args changed; no more than the scenes that may be open) and one
    /// back from each. A chain in which each reduction says two things (an
    /// output up, a message down) doubles at every level, which the depth
    /// bound alone would let reach 2^16.
    var deliveryLimit: Int { 2 * min(childLimit, sceneLimit) }

    /// Reduces `action` on scene `to` because of scene `from`, its update
    /// queued after the one that caused it; chains stop at the navigation
    /// depth, and an input's deliveries at `deliveryLimit`.
    mutating func deliver(_ action: Action, to target: Int64, from source: Int64, in context: inout Reducing) {
        guard context.depth < RuntimeState.maxNavigationDepth else {
            context.steps.append(.warn("scene \(source): actions delivered \(RuntimeState.maxNavigationDepth) levels deep; \(action.type) dropped"))
            return
        }
        guard context.delivered < deliveryLimit else {
            context.steps.append(.warn("scene \(source): \(deliveryLimit) actions delivered for one input; \(action.type) dropped"))
            return
        }
        context.delivered += 1
        context.depth += 1
        defer { context.depth -= 1 }
        do throws(YaiaError) {
            _ = try reduce(target, action, cause: .result(from: source), in: &context)
        } catch {
            context.steps.append(.warn("scene \(target) refused \(action.type) from scene \(source): \(error.message)"))
            context.steps.append(.event(["ok": false, "event": "error", "scene": .int(target), "from": .int(source),
                                         "error": error.nested(under: "/action").json]))
        }
    }

    // MARK: reconciling

    /// Opens the children scene `id`'s state wants and has not, closes the
    /// ones it no longer wants (their effects end, as a closed scene's), and
    /// keeps the rest, in the state's order. Kept children whose args
    /// changed are listed in `argsChanged` when their slot sends them.
    /// Answers the problems, each `{"slot", "key"?, "error"}`: a child that
    /// cannot open is left out, the others are not.
    mutating func reconcile(_ id: Int64, in context: inout Reducing) -> [JSON] {
        var ignored: [(Int64, Action)] = []
        return reconcile(id, argsChanged: &ignored, in: &context)
    }

    mutating func reconcile(_ id: Int64, argsChanged: inout [(Int64, Action)], in context: inout Reducing) -> [JSON] {
        guard let scene = scenes[id], !scene.slots.isEmpty else { return [] }
        let wanted: [Child]
        do throws(YaiaError) {
            wanted = try scene.value.children()
        } catch {
            return [RuntimeState.childProblem(nil, .null, error)]
        }
        // The list reconciled last time, unchanged since, leaves every child as
        // it is: O(1) when it is the same array (a pack's "the same").
        if let last = children.lastWanted[id], last == wanted { return [] }
        var problems: [JSON] = []
        for child in wanted where !scene.slots.contains(where: { $0.name == child.slot }) {
            problems.append(RuntimeState.childProblem(child.slot, child.key, YaiaError(.badChild, "\(scene.value.name) has no child slot \"\(child.slot)\"")))
        }
        let before = children[id] ?? [:]
        var after = ChildTable.Slots()
        var gone: [Int64] = []
        var opened: [Int64] = []
        var count = 0
        let depth = self.depth(of: id) + 1
        for slot in scene.slots {
            let old = before[slot.name] ?? SlotChildren()
            var list = SlotChildren()
            var mine = wanted.filter { $0.slot == slot.name }
            if slot.kind == .one && mine.isEmpty { mine = [Child.one(slot.name)] }
            for (i, child) in mine.enumerated() {
                let key = slot.kind == .keyed ? child.key : .null
                if let problem = badChild(slot, key, index: i, in: list) {
                    problems.append(RuntimeState.childProblem(slot.name, child.key, problem))
                    continue
                }
                if var kept = old.entry(key) {
                    if kept.args != child.args {
                        kept.args = child.args
                        if let type = slot.argsAction { argsChanged.append((kept.id, Action(type, payload: child.args))) }
                    }
                    list.append(kept)
                    count += 1
                    continue
                }
                do throws(YaiaError) {
                    guard count < childLimit else {
                        throw YaiaError(.tooManyChildren, "scene \(id) would have more than \(childLimit) children (the \"children\" limit)")
                    }
                    guard depth <= childDepthLimit else {
                        throw YaiaError(.childrenTooDeep, "a child of scene \(id) would nest \(depth) levels deep; children nest at most \(childDepthLimit)")
                    }
                    let childID = try open(child: child, of: id, slot: slot, key: key, in: &context)
                    list.append(.init(key: key, id: childID, args: child.args))
                    opened.append(childID)
                    count += 1
                } catch {
                    problems.append(RuntimeState.childProblem(slot.name, child.key, error))
                }
            }
            for entry in old.entries where list.position(of: entry.key) == nil { gone.append(entry.id) }
            if !list.entries.isEmpty { after[slot.name] = list }
        }
        // A list with problems is reconciled again, to report them again.
        children.reconciled(id, after, wanted: problems.isEmpty ? wanted : nil)
        if !gone.isEmpty { remove(scenes: gone, steps: &context.steps) }
        let mode = self.mode(of: id, flow: scene.flow)
        for child in opened {
            problems += reconcile(child, in: &context)
            startViews(of: child, view: mode)
        }
        return problems
    }

    /// Why the `index`th child the state lists for `slot`, at `key`, cannot
    /// be: nil when it can.
    private func badChild(_ slot: ChildSlot, _ key: JSON, index: Int, in list: SlotChildren) -> YaiaError? {
        if slot.kind != .keyed && index > 0 {
            return YaiaError(.badChild, "slot \"\(slot.name)\" holds one child, and the state lists \(index + 1)")
        }
        if slot.kind == .keyed && !ChildMessage.isKey(key) {
            return YaiaError(.badChild, "a child of slot \"\(slot.name)\" is keyed by a string or an integer, not \(key.kindName)")
        }
        if list.position(of: key) != nil {
            return YaiaError(.badChild, "slot \"\(slot.name)\" lists the key \(key) twice")
        }
        return nil
    }

    /// Opens a child of scene `parent` (not yet its slot's: the caller adds it).
    private mutating func open(child: Child, of parent: Int64, slot: ChildSlot, key: JSON, in context: inout Reducing) throws(YaiaError) -> Int64 {
        guard case .object = child.args else { throw YaiaError(.badArgs, "the arguments of \(slot.scene) must be an object") }
        try checkSceneRoom()
        let value = try context.env.openScene(slot.scene, args: child.args)
        let id = try takeID(&nextSceneID, "scene")
        var scene = OpenScene(id: id, value: value)
        scene.link = ChildLink(parent: parent, slot: slot.name, key: key, above: scenes[parent]?.link)
        scenes[id] = scene
        return id
    }

    /// Levels of parents above scene `id`.
    func depth(of id: Int64) -> Int {
        var depth = 0
        var link = scenes[id]?.link
        while let l = link, depth <= childDepthLimit {
            depth += 1
            link = scenes[l.parent]?.link
        }
        return depth
    }

    /// `ids` and every scene below them.
    func withDescendants(_ ids: [Int64]) -> [Int64] {
        guard !children.isEmpty else { return ids }
        var all = ids
        var i = 0
        while i < all.count {
            for list in (children[all[i]] ?? [:]).values { all += list.entries.map(\.id) }
            i += 1
        }
        return all
    }

    /// Forgets the children of scenes that are gone.
    mutating func forgetChildren(of ids: [Int64]) {
        guard !children.isEmpty else { return }
        for id in ids { children[id] = nil }
    }

    // MARK: addresses

    /// The slot a link names.
    func slot(of link: ChildLink) -> ChildSlot? {
        scenes[link.parent]?.slots.first { $0.name == link.slot }
    }

    /// Where scene `id` sits: the scene without a parent above it, the
    /// path from there, `[SLOT, KEY?, ...]` (a key only in keyed slots), and
    /// where its view model is in the top scene's (`viewPointer`).
    func place(of id: Int64) -> Update.Place? {
        guard var place = scenes[id]?.link?.place else { return nil }
        place.viewAt = viewPointer(of: id)
        return place
    }

    /// The scene at `path` (`[SLOT, KEY?, ...]`) below scene `top`, or `no_such_child`.
    public func scene(at path: [JSON], below top: Int64) throws(YaiaError) -> Int64 {
        guard let start = scenes[top] else { throw RuntimeState.noSuchScene(top) }
        var current = start
        var i = 0
        while i < path.count {
            let at = JSONPointer.appending("/path", i)
            guard case .string(let name) = path[i], let slot = current.slots.first(where: { $0.name == name }) else {
                throw YaiaError(.noSuchChild, "scene \(current.id) (\(current.value.name)) has no child slot \(path[i])"
                                + Suggestion.hint(path[i].stringValue ?? "", among: current.slots.map(\.name)), at: at)
            }
            var key = JSON.null
            if slot.kind == .keyed {
                guard i + 1 < path.count else { throw YaiaError(.noSuchChild, "slot \"\(name)\" is keyed: a key follows it", at: at) }
                i += 1
                key = path[i]
            }
            guard let id = children.child(of: current.id, slot: name, key: key), let child = scenes[id] else {
                throw noSuchChild(current.id, name, key)
            }
            current = child
            i += 1
        }
        return current.id
    }

    func noSuchChild(_ parent: Int64, _ slot: String, _ key: JSON) -> YaiaError {
        YaiaError(.noSuchChild, "scene \(parent) has no child in slot \"\(slot)\"" + (key == .null ? "" : " at key \(key)"))
    }

    /// The action an intercepting parent receives instead of its child's `action`.
    func willSend(_ action: Action, to link: ChildLink, _ slot: ChildSlot) -> Action {
        var payload: JSONObject = ["action": action.json]
        if slot.kind == .keyed { payload["key"] = link.key }
        return Action(slot.willSend, payload: .object(payload))
    }

    static func childProblem(_ slot: String?, _ key: JSON, _ error: YaiaError) -> JSON {
        // The problem of a child, `{"slot"?, "key"?, "error"}`.
        var o: JSONObject = ["error": error.json]
        if let slot { o["slot"] = .string(slot) }
        if key != .null { o["key"] = key }
        return .object(o)
    }
}
