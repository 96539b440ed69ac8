/// Invariants: named conditions a scene's state must always meet. A runtime
/// checks them only when asked (the simulator, scenario runs), never on the
/// send path.

/// An invariant that does not hold: its name, and why.
public struct InvariantFailure: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { message }

    /// The failure of invariant `name` of scene type `scene`, which does not hold.
    package static func broken(_ name: String, scene: String) -> InvariantFailure {
        InvariantFailure(name: name, message: "the invariant \"\(name)\" of \(scene) does not hold")
    }
}

/// A Swift scene's invariant: a name and a pure predicate over the state.
public struct Invariant<S: SceneState>: Sendable {
    public let name: String
    public let holds: @Sendable (S) -> Bool

    public init(_ name: String, _ holds: @escaping @Sendable (S) -> Bool) {
        self.name = name
        self.holds = holds
    }
}

extension SceneState {
    /// No invariants, unless the scene declares some.
    public static var invariants: [Invariant<Self>] { [] }

    /// The invariants this state breaks, in declaration order.
    public var failingInvariants: [InvariantFailure] {
        Self.invariants.filter { !$0.holds(self) }.map { InvariantFailure.broken($0.name, scene: Self.name) }
    }
}

extension SceneValue {
    /// The invariants the state breaks.
    public var failingInvariants: [InvariantFailure] { state.failingInvariants }
}

extension SceneType {
    /// The invariants the state `json` breaks (restored first: a state the
    /// type refuses is `bad_state`).
    public func failingInvariants(state json: JSON) throws(YaiaError) -> [InvariantFailure] {
        try restore(state: json).failingInvariants
    }
}
