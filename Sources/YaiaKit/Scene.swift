/// A value that has a JSON form.
public protocol JSONRepresentable {
    var json: JSON { get }
}

extension JSON: JSONRepresentable {
    public var json: JSON { self }
}

/// A scene's typed actions, read from Flux Standard Actions.
public protocol SceneAction: Sendable {
    /// Throws `unknown_action` for a type the scene does not know and
    /// `bad_payload` (with `at` inside the action) for a payload of the wrong shape.
    init(_ action: Action) throws(YaiaError)
}

/// The logic of a scene: a value-type State with a pure reducer.
///
/// `reduce` must be pure: no IO, no clock, no randomness, no threads. IO is
/// returned as `.effect` commands and navigation as `.route` commands.
public protocol SceneState: Sendable, Equatable, JSONRepresentable {
    associatedtype Action: SceneAction
    associatedtype ViewModel: JSONRepresentable & Equatable & Sendable

    /// The scene type's name in the catalog, such as "example/login".
    static var name: String { get }

    /// A fresh state from open arguments (`{}` when none were given).
    /// Throws `bad_args` for arguments it cannot use.
    init(args: JSON) throws(YaiaError)

    /// Reads a state back from its `json` form (for snapshots).
    init(json: JSON) throws(YaiaError)

    mutating func reduce(_ action: Action) -> [Command]

    /// What a UI renders: a pure function of the state.
    var viewModel: ViewModel { get }

    /// Conditions every state must meet, by name (Invariants.swift); none
    /// unless declared. Checked only by the simulator and scenario runs.
    static var invariants: [Invariant<Self>] { get }

    /// The child slots of the scene type (docs/composition.md); none unless declared.
    static var childSlots: [ChildSlot] { get }
    /// The children the state wants now, in each slot's order: a pure
    /// function of the state, as the view model is.
    var children: [Child] { get }
}

extension SceneState {
    public static var childSlots: [ChildSlot] { [] }
    public var children: [Child] { [] }
}

/// A scene type, erased: opens typed states behind JSON.
public struct SceneType: Sendable {
    public let name: String
    let make: @Sendable (JSON) throws(YaiaError) -> SceneValue
    let restore: @Sendable (JSON) throws(YaiaError) -> SceneValue
    /// Whether the type declares any invariant.
    public let hasInvariants: Bool
    /// Its child slots: a pack's glue declares them without a state.
    public let childSlots: [ChildSlot]

    public init<S: SceneState>(_ type: S.Type) {
        name = S.name
        hasInvariants = !S.invariants.isEmpty
        childSlots = S.childSlots
        make = { (args) throws(YaiaError) in SceneValue(try S(args: args)) }
        restore = { (json) throws(YaiaError) in SceneValue(try S(json: json)) }
    }

    public func open(args: JSON = [:]) throws(YaiaError) -> SceneValue { try make(args) }
    public func restore(state: JSON) throws(YaiaError) -> SceneValue { try restore(state) }
}

/// A scene's state as a runtime holds it: a Swift value in this process
/// (SceneValue), or a state that lives in a scene pack.
public protocol LiveScene: Sendable {
    /// The scene type's name in the catalog.
    var name: String { get }
    /// Checks that the scene can read `action`, without reducing it.
    func check(_ action: Action) throws(YaiaError)
    /// Reduces `action`; on error the state is unchanged.
    mutating func reduce(_ action: Action) throws(YaiaError) -> [Command]
    var viewModel: JSON { get }
    /// The state's JSON form, which the scene type restores from. Only a
    /// scene whose state lives elsewhere (a pack's) can fail to give it.
    var json: JSON { get throws(YaiaError) }

    /// Writes the view model; a scene that has it as text copies the text.
    func writeViewModel(into writer: inout JSONWriter)
    /// `reduce`, as the runtime calls it: the action as it was sent (a
    /// scene that reads text itself takes the caller's text, and builds no
    /// value), and the host's values (`env`: the clock's `now` and what the
    /// host set), which only scenes that read them (documents) ask.
    mutating func reduce(_ sent: SentAction, env: () -> JSON) throws(YaiaError) -> [Command]

    /// Patch mode: the next reduction should keep its view model's change as
    /// JSON Patch operations, when the scene can give them itself (a pack's
    /// reduce_patch); `takeViewPatch` then hands them over.
    func patchNextReduction()
    /// The operations from the view model before the last reduction to the
    /// one after, once; nil when the scene has none (the runtime then diffs
    /// the view models itself).
    func takeViewPatch() -> JSON?
    /// The child slots the scene declares: read once, when it opens.
    var childSlots: [ChildSlot] { get }
    /// The children its state wants now (docs/composition.md); asked only
    /// of a scene that declares slots, after each of its reductions.
    func children() throws(YaiaError) -> [Child]
}

extension LiveScene {
    public mutating func reduce(_ sent: SentAction, env: () -> JSON) throws(YaiaError) -> [Command] {
        try reduce(try sent.action())
    }

    public func writeViewModel(into writer: inout JSONWriter) { writer.write(viewModel) }

    public func patchNextReduction() {}
    public func takeViewPatch() -> JSON? { nil }
    public var childSlots: [ChildSlot] { [] }
    public func children() throws(YaiaError) -> [Child] { [] }
}

/// A typed scene state driven with JSON: the type erasure between the typed
/// world of a reducer and the JSON world of the ABI.
public struct SceneValue: LiveScene, Equatable {
    public private(set) var state: any SceneState

    public init<S: SceneState>(_ state: S) { self.state = state }

    public var name: String { type(of: state).name }

    /// Checks that the scene can read `action`, without reducing it.
    public func check(_ action: Action) throws(YaiaError) {
        func open<S: SceneState>(_: S) throws(YaiaError) { _ = try S.Action(action) }
        try open(state)
    }

    /// Reduces `action`; on error the state is unchanged.
    public mutating func reduce(_ action: Action) throws(YaiaError) -> [Command] {
        func open<S: SceneState>(_ s: inout S) throws(YaiaError) -> [Command] {
            let typed = try S.Action(action)
            return s.reduce(typed)
        }
        return try open(&state)
    }

    public var viewModel: JSON { state.viewModel.json }
    public var json: JSON { state.json }
    public var childSlots: [ChildSlot] { type(of: state).childSlots }
    public func children() throws(YaiaError) -> [Child] { state.children }

    public static func == (a: SceneValue, b: SceneValue) -> Bool {
        func equal<S: SceneState>(_ x: S) -> Bool { (b.state as? S) == x }
        return equal(a.state)
    }
}

/// Scene types by name.
public struct SceneCatalog: Sendable {
    private var types: [String: SceneType] = [:]

    public init() {}

    public init(_ types: [SceneType]) {
        for t in types { register(t) }
    }

    /// Registers a type; a later registration of the same name replaces it.
    public mutating func register(_ type: SceneType) { types[type.name] = type }

    public mutating func register<S: SceneState>(_ type: S.Type) { register(SceneType(type)) }

    public subscript(name: String) -> SceneType? { types[name] }

    public var names: [String] { types.keys.sorted { compareKeys($0, $1) < 0 } }
}

// MARK: - Helpers for reading payloads in SceneAction initializers

extension Action {
    /// The payload as a string, or `bad_payload`.
    public func stringPayload() throws(YaiaError) -> String {
        guard case .string(let s)? = payload else {
            throw YaiaError(.badPayload, "\(type) takes a string payload, not \(payload?.kindName ?? "none")", at: "/payload")
        }
        return s
    }

    /// The payload as an object, or `bad_payload`.
    public func objectPayload() throws(YaiaError) -> JSONObject {
        guard case .object(let o)? = payload else {
            throw YaiaError(.badPayload, "\(type) takes an object payload, not \(payload?.kindName ?? "none")", at: "/payload")
        }
        return o
    }

    /// A required member of an object payload.
    public func member(_ key: String, of o: JSONObject) throws(YaiaError) -> JSON {
        guard let v = o[key] else {
            throw YaiaError(.badPayload, "\(type) needs \"\(key)\" in its payload", at: "/payload/" + JSONPointer.token(key))
        }
        return v
    }

    /// `unknown_action` for this action.
    public var unknown: YaiaError {
        YaiaError(.unknownAction, "unknown action type \"\(type)\"", at: "/type")
    }
}
