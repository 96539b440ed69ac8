import YaiaKit

/// What one reduction of a scene did, as the runtime answers it (a request's
/// update) or queues it (an event): `{"childErrors"?, "effect"?, "effects",
/// "event"?, "flow"?, "from"?, "navigationErrors"?, "ok", "path"?, "routes",
/// "scene", "seq", "stack"?, "tag"?, "top"?, "version"?, "viewAt"?, "viewModel"}`. Described once (`members`): its text
/// and its tree follow from it.
public struct Update: JSONMembers {
    public let scene: Int64
    public let seq: Int64
    public let cause: RuntimeState.Cause
    /// The records of the effects it emitted, in order.
    public internal(set) var effects = EmittedRecords()
    public internal(set) var routes: [Route] = []
    /// The routes the flow refused: `{"route", "error"}` each.
    public internal(set) var navigationErrors: [JSON] = []
    /// The flow, when the reduction changed its stack.
    public internal(set) var flow: FlowChange?
    public var view: View
    /// What an update of a parent or a child scene adds; nil for the
    /// others, which then carry one word for it and copy nothing more.
    public internal(set) var family: Family?
    /// The tag of the request it answers, given back (docs/abi.md).
    public var tag: JSON?

    /// Children that could not open or be told: `{"slot"?, "key"?, "error"}` each.
    public internal(set) var childErrors: [JSON] {
        get { family?.childErrors ?? [] }
        set { family = Family(childErrors: newValue, place: family?.place) }
    }

    /// A child scene's place, below the scene without a parent.
    public internal(set) var place: Place? {
        get { family?.place }
        set { family = Family(childErrors: family?.childErrors ?? [], place: newValue) }
    }

    /// Where a child scene sits: `top`, the scene without a parent above it,
    /// and `path`, `[SLOT, KEY?, ...]` from there (docs/composition.md);
    /// `viewAt`, where its view model sits in the top scene's, as a JSON
    /// Pointer with positions for keys (`/rows/4`): where a host that holds
    /// the top scene's view model applies the child's view.
    public struct Place: Sendable {
        public let top: Int64
        public let path: JSON
        public var viewAt: String?
    }

    public final class Family: Sendable {
        public let childErrors: [JSON]
        public let place: Place?

        init(childErrors: [JSON], place: Place?) {
            self.childErrors = childErrors
            self.place = place
        }
    }

    /// The view part of an update. An enum, so that a view given as a change
    /// from the previous one can join the whole view model.
    public enum View: JSONForm {
        /// The scene as reduced, which writes its view model when the update
        /// is written (a pack's text as is, a tree's canonical text). Held as
        /// a value, not through the state: no scene state is copied.
        case scene(any LiveScene)
        /// A view model given as a value.
        case value(JSON)
        /// A view model sent as a patch (patch mode); written whole, it is
        /// the scene's.
        case patch(ViewPatch)

        public func write(into w: inout JSONWriter) {
            switch self {
            case .scene(let scene): scene.writeViewModel(into: &w)
            case .value(let json): w.write(json)
            case .patch(let patch):
                if let whole = patch.whole { w.write(whole) } else { patch.scene.writeViewModel(into: &w) }
            }
        }

        public var json: JSON {
            switch self {
            case .scene(let scene): scene.viewModel
            case .value(let json): json
            case .patch(let patch): patch.whole ?? patch.scene.viewModel
            }
        }
    }

    /// A flow's stack as a UI renders it, after a change.
    public struct FlowChange: Sendable {
        public let id: Int64
        public let version: Int64
        /// Its entries, each with its scene's view model.
        public let stack: JSON
    }

    init(scene: Int64, seq: Int64, cause: RuntimeState.Cause, view: View) {
        self.scene = scene
        self.seq = seq
        self.cause = cause
        self.view = view
    }

    // Inlinable, so that the runtime's writer of updates is specialized.
    @inlinable
    public func members<Sink: JSONMemberSink>(into sink: inout Sink) {
        if let family, !family.childErrors.isEmpty { sink.member("childErrors", .array(family.childErrors)) }
        if case .effect(let effect) = cause { sink.member("effect", int: effect) }
        sink.member("effects", array: effects)
        if cause != .request { sink.member("event", "update") }
        if let flow { sink.member("flow", int: flow.id) }
        if case .result(let from) = cause { sink.member("from", int: from) }
        if !navigationErrors.isEmpty { sink.member("navigationErrors", .array(navigationErrors)) }
        sink.member("ok", true)
        if let place = family?.place { sink.member("path", place.path) }
        sink.member("routes", array: routes)
        sink.member("scene", int: scene)
        sink.member("seq", int: seq)
        stack(into: &sink)
        if let tag { sink.member("tag", tag) }
        if let place = family?.place { sink.member("top", int: place.top) }
        if let flow { sink.member("version", int: flow.version) }
        if let at = family?.place?.viewAt { sink.member("viewAt", string: at) }
        view(into: &sink)
    }

    /// The members a journal line's digest covers, as their own object
    /// (`{"stack"?, "viewModel"}`): what a replay must reproduce. The view
    /// model whole, in either view mode.
    public struct Digested: JSONMembers {
        let update: Update

        public func members<Sink: JSONMemberSink>(into sink: inout Sink) {
            update.stack(into: &sink)
            sink.member("viewModel", form: update.view)
        }
    }

    public var digested: Digested { Digested(update: self) }

    @inlinable
    func stack<Sink: JSONMemberSink>(into sink: inout Sink) {
        if let flow { sink.member("stack", flow.stack) }
    }

    @inlinable
    func view<Sink: JSONMemberSink>(into sink: inout Sink) {
        if case .patch(let patch) = view {
            sink.member("viewBase", int: patch.base)
            sink.member("viewPatch", patch.operations)
        } else {
            sink.member("viewModel", form: view)
        }
    }
}

/// An action's target: a scene, or the top scene of a flow.
public enum SendTarget: Sendable, Equatable {
    case scene(Int64)
    case flow(Int64)
}

/// The records of the effects one reduction emits, in order. An array, not
/// an inline first record: an update is copied whole where it is returned,
/// and most emit nothing, which costs an empty array nothing.
public struct EmittedRecords: RandomAccessCollection, Sendable {
    var records: [EffectTable.Record] = []

    mutating func append(_ record: EffectTable.Record) { records.append(record) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { records.count }

    public subscript(i: Int) -> EffectTable.Record { records[i] }
}
