import YaiaKit

/// How a host receives a scene's view models: whole in every update, or, in
/// patch mode, as the JSON Patch from the view model of the last update it
/// was sent (docs/abi.md, "View models as patches").
public enum ViewMode: String, Sendable, CaseIterable {
    case whole
    case patch

    /// Reads a request's or the config's `"view"`; nil when absent.
    public static func read(_ value: JSON?, at pointer: String, code: ErrorCode) throws(YaiaError) -> ViewMode? {
        guard let value else { return nil }
        guard case .string(let s) = value, let mode = ViewMode(rawValue: s) else {
            throw YaiaError(code, "\"view\" is \"whole\" or \"patch\"", at: pointer)
        }
        return mode
    }
}

/// What the runtime remembers to send view models as patches: per scene in
/// patch mode, the last view model it sent and that update's seq; and which
/// scenes and flows were given a mode other than the runtime's. Views are
/// the host's business, not the scenes': journals and snapshots leave this out.
public struct ViewCache: Sendable {
    struct Sent: Sendable {
        /// Nil when the scene keeps it: it gives its own patches.
        var view: JSON?
        var seq: Int64
    }

    struct Kept: Sendable {
        var view: JSON
        var seq: Int64
    }

    /// A keyed slot's list of its children's view models, as composed from
    /// `children` (held, so that its storage is not another's meanwhile).
    struct KeptList: Sendable {
        var children: SlotChildren
        var view: JSON
    }

    /// The runtime's mode (config `"view"`): scenes given none take it.
    public var mode: ViewMode = .whole
    /// The open scenes in patch mode.
    var sent = IDMap<Sent>()
    /// Child scenes' own view models (theirs, without their children's),
    /// each with the seq it is of: a child's changes only when it reduces,
    /// so a parent's view asks again only the children that did.
    var kept = IDMap<Kept>()
    /// Each parent's keyed slots' lists as last composed, kept while the
    /// slot has the same children and none of them, nor any scene below
    /// them, has reduced since: a parent's send then does not visit its
    /// 10,000 rows. A reduction below drops its ancestors' (`reduced(below:)`).
    var lists = IDMap<[String: KeptList]>()
    /// Scenes and flows whose mode is not the runtime's, kept across a
    /// restore for the ids it brings back.
    var sceneModes = IDMap<ViewMode>()
    var flowModes = IDMap<ViewMode>()

    public init() {}
}

/// A view model given as a patch: `operations` turn the view model of the
/// update of seq `base` into `scene`'s.
public struct ViewPatch: Sendable {
    public let scene: any LiveScene
    public let base: Int64
    public let operations: JSON
    /// The whole view model, when it holds children's (the scene's own is not all of it).
    public var whole: JSON?

    init(scene: any LiveScene, base: Int64, operations: JSON, whole: JSON? = nil) {
        self.scene = scene
        self.base = base
        self.operations = operations
        self.whole = whole
    }
}

extension RuntimeState {
    /// The runtime's view mode.
    public var viewMode: ViewMode {
        get { views.mode }
        set { views.mode = newValue }
    }

    /// The view of an update of scene `id` at `seq` whose scene is now
    /// `value`: as the scene writes it, or in patch mode the patch from the
    /// view model last sent, which the update then replaces.
    mutating func view(of id: Int64, seq: Int64, _ value: any LiveScene) -> Update.View {
        guard !views.sent.isEmpty, let last = views.sent[id] else { return .scene(value) }
        if let operations = value.takeViewPatch() {
            views.sent[id] = ViewCache.Sent(view: nil, seq: seq)
            return .patch(ViewPatch(scene: value, base: last.seq, operations: operations))
        }
        let now = value.viewModel
        let operations: JSON
        if let view = last.view {
            operations = JSONPatch.json(JSONPatch.diff(from: view, to: now))
        } else {
            // The scene kept the view model and gave no patch this time: the
            // same seq is the same view model, another one is sent whole.
            operations = last.seq == seq ? [] : JSONPatch.json([.replace(path: "", value: now)])
        }
        views.sent[id] = ViewCache.Sent(view: now, seq: seq)
        return .patch(ViewPatch(scene: value, base: last.seq, operations: operations))
    }

    /// Scene `id` was just opened (`mode`: the one its host asked for,
    /// else its flow's, else the runtime's); its view model goes out whole.
    mutating func startViews(of id: Int64, view mode: ViewMode?) {
        guard let scene = scenes[id] else { return }
        if let mode, mode != views.mode { views.sceneModes[id] = mode }
        if self.mode(of: id, flow: scene.flow) == .patch {
            views.sent[id] = ViewCache.Sent(view: composedView(of: id), seq: scene.seq)
        }
    }

    /// Flow `id` was started in `mode`: the scenes it opens take it.
    mutating func started(flow id: Int64, view mode: ViewMode?) {
        if let mode, mode != views.mode { views.flowModes[id] = mode }
    }

    /// Forgets closed scenes and flows.
    mutating func forgetViews(scenes ids: [Int64], flow: Int64? = nil) {
        for id in ids {
            views.sent[id] = nil
            views.kept[id] = nil
            views.lists[id] = nil
            views.sceneModes[id] = nil
        }
        if let flow { views.flowModes[flow] = nil }
    }

    /// After a restore: every scene in patch mode starts again from its
    /// view model as restored. Modes given to ids the restore did not bring
    /// back are forgotten, and so are the kept view models: a restored
    /// scene may have another state at the same seq.
    mutating func restartViews() {
        views.sent.removeAll()
        views.kept.removeAll()
        views.lists.removeAll()
        for (id, _) in views.sceneModes where !scenes.contains(id) { views.sceneModes[id] = nil }
        for (id, _) in views.flowModes where flows[id] == nil { views.flowModes[id] = nil }
        for scene in scenes.values where mode(of: scene.id, flow: scene.flow) == .patch {
            views.sent[scene.id] = ViewCache.Sent(view: composedView(of: scene.id), seq: scene.seq)
        }
    }

    func mode(of id: Int64, flow: Int64?) -> ViewMode {
        views.sceneModes[id] ?? flow.flatMap { views.flowModes[$0] } ?? views.mode
    }

    /// Whether scene `id` is in patch mode.
    public func inPatchMode(_ id: Int64) -> Bool { views.sent[id] != nil }

    /// `{"op":"view"}`: scene `id`'s whole view model and seq. The host holds
    /// it from now on, so the next patch starts from it.
    public mutating func currentView(scene id: Int64) throws(YaiaError) -> JSON {
        guard let scene = scenes[id] else { throw RuntimeState.noSuchScene(id) }
        let view = composedView(of: id)
        if views.sent[id] != nil { views.sent[id] = ViewCache.Sent(view: view, seq: scene.seq) }
        return ["ok": true, "scene": .int(id), "seq": .int(scene.seq), "view": .string(mode(of: id, flow: scene.flow).rawValue),
                "viewModel": view]
    }
}
