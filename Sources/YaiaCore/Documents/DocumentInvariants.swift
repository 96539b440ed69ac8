// Invariants of scene documents: JSON Logic rules the runtime evaluates on
// request (the Swift half, Invariant and InvariantFailure, is in YaiaKit).
import YaiaKit

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
                var steps = self.steps
                if try rule.evaluate(data, budget: &steps) != .bool(true) { failures.append(.broken(name, scene: self.name)) }
            } catch {
                failures.append(InvariantFailure(name: name, message: "the invariant \"\(name)\" of \(self.name) cannot be evaluated: \(error.message)"))
            }
        }
        return failures
    }
}
