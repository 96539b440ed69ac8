import YaiaKit

// The view models of scenes with children: each slot's children's view
// models placed in the parent's (docs/composition.md).

extension RuntimeState {
    /// Scene `id`'s view model with its children's in it: in an object view
    /// model, each slot's member holds its child's view model (null when it
    /// has none) or, keyed, the list of them in the state's order. A scene
    /// without slots, or whose view model is no object, gives its own.
    public func viewModel(of id: Int64) -> JSON {
        guard let scene = scenes[id] else { return .null }
        let own = scene.value.viewModel
        guard !scene.slots.isEmpty, case .object(var o) = own else { return own }
        let slots = children[id]
        for slot in scene.slots {
            let entries = slots?[slot.name]?.entries ?? []
            switch slot.kind {
            case .keyed: o[slot.name] = .array(entries.map { viewModel(of: $0.id) })
            case .one, .optional: o[slot.name] = entries.first.map { viewModel(of: $0.id) } ?? .null
            }
        }
        return .object(o)
    }

    /// `viewModel(of:)` made from the children's view models kept since
    /// their last reduction (`ViewCache.kept`): only a child whose seq
    /// moved is asked again (for a pack's, a call and a parse), and the
    /// others keep their storage, which the diff from the view last sent
    /// steps over in one comparison. The same value as `viewModel(of:)`.
    mutating func composedView(of id: Int64) -> JSON {
        // A row kept since its last reduction, read in place: a parent of
        // 10,000 rows would otherwise copy each out of the table.
        if let seq = scenes.rowSeq(id), let kept = views.kept[id], kept.seq == seq { return kept.view }
        guard let scene = scenes[id] else { return .null }
        let own = scene.link == nil ? scene.value.viewModel : keptView(of: scene)
        guard !scene.slots.isEmpty, case .object(var o) = own else { return own }
        let slots = children[id]
        for slot in scene.slots {
            let children = slots?[slot.name] ?? SlotChildren()
            let entries = children.entries
            switch slot.kind {
            case .keyed:
                if let kept = views.lists[id]?[slot.name], kept.children.entries.sharesBuffer(with: entries) {
                    o[slot.name] = kept.view
                    continue
                }
                var list: [JSON] = []
                list.reserveCapacity(entries.count)
                for entry in entries { list.append(composedView(of: entry.id)) }
                o[slot.name] = .array(list)
                var lists = views.lists[id] ?? [:]
                lists[slot.name] = ViewCache.KeptList(children: children, view: .array(list))
                views.lists[id] = lists
            case .one, .optional: o[slot.name] = entries.first.map { composedView(of: $0.id) } ?? .null
            }
        }
        return .object(o)
    }

    /// Scene `id` reduced: the lists composed above it no longer hold its view.
    mutating func reduced(below id: Int64) {
        guard !views.lists.isEmpty else { return }
        var above = scenes.parent(of: id)
        var levels = 0
        while let parent = above, levels <= childDepthLimit {
            views.lists[parent] = nil
            above = scenes.parent(of: parent)
            levels += 1
        }
    }

    /// A child's own view model, kept while its seq stays.
    private mutating func keptView(of scene: OpenScene) -> JSON {
        if let kept = views.kept[scene.id], kept.seq == scene.seq { return kept.view }
        let view = scene.value.viewModel
        views.kept[scene.id] = ViewCache.Kept(view: view, seq: scene.seq)
        return view
    }

    /// The view of an update of scene `id` (with slots or a parent) at
    /// `seq`: its view model with its children's; in patch mode, the patch
    /// from the last one sent, which the places that hold it above (its
    /// ancestors' last view models) take too, as the host applies it there.
    mutating func familyView(of id: Int64, seq: Int64, _ value: any LiveScene) -> Update.View {
        let hasSlots = scenes[id].map { !$0.slots.isEmpty } ?? false
        guard !views.sent.isEmpty else { return hasSlots ? .value(composedView(of: id)) : .scene(value) }
        let whole = composedView(of: id)
        propagate(whole, from: id)
        guard let last = views.sent[id] else { return hasSlots ? .value(whole) : .scene(value) }
        // A scene that made its own patches (a pack's) left no view here:
        // its new view replaces the whole.
        let operations = last.view.map { JSONPatch.json(JSONPatch.diff(from: $0, to: whole)) }
            ?? [["op": "replace", "path": "", "value": whole]]
        views.sent[id] = ViewCache.Sent(view: whole, seq: seq)
        return .patch(ViewPatch(scene: value, base: last.seq, operations: operations, whole: hasSlots ? whole : nil))
    }

    /// Puts `view`, scene `id`'s new view model, in the last view models
    /// sent of the scenes above it, at its place in each.
    private mutating func propagate(_ view: JSON, from id: Int64) {
        var steps: [PathStep] = []
        var current = id
        while let link = scenes[current]?.link, steps.count <= 2 * (childDepthLimit + 1) {
            if link.keyed {
                guard let index = children[link.parent]?[link.slot]?.position(of: link.key) else { return }
                steps.append(.index(index))
            }
            steps.append(.member(link.slot))
            current = link.parent
            if views.sent[current] != nil {
                let path = Array(steps.reversed())
                views.sent.modify(current) { sent in
                    guard var held = sent.view else { return }
                    sent.view = nil
                    RuntimeState.put(view, at: path[...], in: &held)
                    sent.view = held
                }
            }
        }
    }

    enum PathStep {
        case member(String)
        case index(Int)
    }

    /// Sets `value` at `path` in `target` in place; a path that does not
    /// lead anywhere changes nothing. Each level's container is taken out
    /// of `target` (left null) before it changes, so that it is held once
    /// and changes without a copy: a row's view put in a list of 10,000
    /// costs the row's path, not the list.
    static func put(_ value: JSON, at path: ArraySlice<PathStep>, in target: inout JSON) {
        guard let step = path.first else {
            target = value
            return
        }
        switch step {
        case .member(let name):
            guard case .object(var o) = target, o[name] != nil else { return }
            target = .null
            o.update(name, absent: .null) { (child) in put(value, at: path.dropFirst(), in: &child) }
            target = .object(o)
        case .index(let i):
            guard case .array(var a) = target, a.indices.contains(i) else { return }
            target = .null
            put(value, at: path.dropFirst(), in: &a[i])
            target = .array(a)
        }
    }
}
