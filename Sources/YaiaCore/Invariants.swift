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
    public static func broken(_ name: String, scene: String) -> InvariantFailure {
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

extension SceneDocument {
    /// The names of the document's invariants, in the byte order of their names (as JSON objects keep members).
    public var invariantNames: [String] { storage.invariants.map(\.key) }
}

extension DocumentScene {
    /// The invariants `state` breaks, with `args` the scene was opened with
    /// (defaults filled in here; null when unknown, as for a restored scene)
    /// and the host's `env`. An invariant whose evaluation fails (its budget,
    /// an operator refusing a value) counts as broken.
    public func failingInvariants(state: JSON, args: JSON?, env: JSON) -> [InvariantFailure] {
        let invariants = document.storage.invariants
        guard !invariants.isEmpty else { return [] }
        var filled = args ?? .null
        if let args, let checked = try? checkedArgs(args) { filled = .object(checked) }
        let data: JSON = ["state": state, "args": filled, "env": env]
        var failures: [InvariantFailure] = []
        for (name, rule) in invariants {
            do throws(YaiaError) {
                if try rule.evaluate(data, budget: budget) != .bool(true) { failures.append(.broken(name, scene: self.name)) }
            } catch {
                failures.append(InvariantFailure(name: name, message: "the invariant \"\(name)\" of \(self.name) cannot be evaluated: \(error.message)"))
            }
        }
        return failures
    }
}
