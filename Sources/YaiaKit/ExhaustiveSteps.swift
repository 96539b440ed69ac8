// The exhaustive rules for a test that states a step's whole outcome at
// once (a scenario file's step): its effects and routes as lists.

extension ExhaustiveRules {
    /// The effects a step emitted against the ones it states (each by the
    /// members given). After an input, exhaustive: all of them, in order;
    /// else each stated one must be among them. `emitted` names them.
    package func stepEffects(expected: [JSONObject], actual: [JSON], emitted: String, input: Bool = true) -> Failure? {
        var differences: [ScenarioDiff.Difference] = []
        if exhaustive && input {
            for i in 0..<max(expected.count, actual.count) {
                let p = "/effects/\(i)"
                if i >= actual.count {
                    differences.append(.init(pointer: p, expected: .object(expected[i]), actual: nil, inArray: true))
                } else if i >= expected.count {
                    differences.append(.init(pointer: p, expected: nil, actual: actual[i], inArray: true))
                } else {
                    differences += ScenarioDiff.partial(expected: expected[i], actual: actual[i], at: p)
                }
            }
            guard !differences.isEmpty else { return nil }
            let said = actual.isEmpty ? "no effect was emitted" : "emitted: " + emitted
            return Failure("the effects are not the expected ones (\(said))", differences: differences)
        }
        for (i, e) in expected.enumerated() where !actual.contains(where: { ScenarioDiff.partial(expected: e, actual: $0, at: "").isEmpty }) {
            differences.append(.init(pointer: "/effects/\(i)", expected: .object(e), actual: nil, inArray: true))
        }
        return differences.isEmpty ? nil : Failure("an expected effect was not emitted", differences: differences)
    }

    /// The routes a step asked for against the ones it states: exhaustive,
    /// after an input, all of them in order; else each stated one among them.
    package func stepRoutes(expected: [JSON], actual: [JSON], input: Bool = true) -> Failure? {
        if exhaustive && input {
            let differences = ScenarioDiff.differences(expected: .array(expected), actual: .array(actual), at: "/routes")
            return differences.isEmpty ? nil : Failure("the routes are not the expected ones", differences: differences)
        }
        let differences = expected.enumerated().filter { !actual.contains($0.element) }.map {
            ScenarioDiff.Difference(pointer: "/routes/\($0.offset)", expected: $0.element, actual: nil, inArray: true)
        }
        return differences.isEmpty ? nil : Failure("an expected route was not asked for", differences: differences)
    }

    /// Effects left in flight at the end: `requests`, named `names`.
    package static func inFlight(_ requests: [JSON], names: String, at pointer: String = "/inFlight") -> Failure {
        Failure(stillInFlight(requests.count, names: names), differences: requests.enumerated().map { (i, r) in
            ScenarioDiff.Difference(pointer: "\(pointer)/\(i)", expected: nil, actual: r, inArray: true)
        })
    }
}
