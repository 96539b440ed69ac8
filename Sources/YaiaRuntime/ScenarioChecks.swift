// A step's expectations: what its input did checked against them, or written as them when recording.
import YaiaCore
import YaiaKit

extension ScenarioRun {
    /// Whether what a step's input did is what the step expects.
    func check(_ step: Scenario.Step, _ applied: Applied) -> [Part] {
        let exhaustive = step.exhaustive ?? scenario.exhaustive
        let (subject, outcomes, refusal) = (applied.subject, applied.outcomes, applied.refusal)
        var parts: [Part] = []
        if let expected = step.expectError {
            guard let refusal else { return [("the input was accepted; a refusal with code \(expected.code) was expected", [], [])] }
            var differences: [ScenarioDiff.Difference] = []
            if refusal.code.rawValue != expected.code {
                differences.append(.init(pointer: "/error/code", expected: .string(expected.code), actual: .string(refusal.code.rawValue)))
            }
            if let at = expected.at, refusal.at != at {
                differences.append(.init(pointer: "/error/at", expected: .string(at), actual: refusal.at.map(JSON.string)))
            }
            if let m = expected.message, !refusal.message.contains(m) {
                differences.append(.init(pointer: "/error/message", expected: .string(m), actual: .string(refusal.message)))
            }
            if !differences.isEmpty { parts.append(("the input was refused, but not as expected", differences, [])) }
            return parts
        }
        if let refusal {
            return [("the scene refused the input: \(refusal.code): \(refusal.message)" + (refusal.at.map { " (at \($0))" } ?? ""), [], [])]
        }
        for error in outcomes.errors { parts.append((error, [], [])) }
        let expect = step.expect ?? Scenario.Expectation()
        let isInput: Bool = { if case .none = step.input { return false } else { return true } }()

        // The state: after an input, the previous one with exactly the stated changes.
        if let now = readState(subject)?.state {
            let previous = states[subject] ?? now
            var expected: JSON?
            var problems: [String] = []
            if let changes = expect.state {
                var base = isInput && exhaustive ? previous : now
                for m in changes.members {
                    let pointer = m.key.hasPrefix("/") ? m.key : JSONPointer.appending("", m.key)
                    if let changed = ScenarioDiff.setting(m.value, at: pointer, in: base) { base = changed } else {
                        problems.append("/state\(pointer): the expected change has nowhere to go")
                    }
                }
                expected = base
            } else if isInput && exhaustive {
                expected = previous
            }
            if let expected {
                let differences = ScenarioDiff.differences(expected: expected, actual: now, at: "/state")
                if !differences.isEmpty || !problems.isEmpty {
                    let hint = expect.state == nil ? " (no \"state\" was given: it must not change)" : ""
                    parts.append(("the state is not the expected one" + hint, differences, problems))
                }
            }
        } else if expect.state != nil {
            parts.append(("the scene closed (a route of its own popped or dismissed it): its state cannot be read; state no \"state\" for this step", [], []))
        }

        // Effects: in exhaustive mode every one emitted, in order.
        let expectedEffects = expect.effects ?? []
        if exhaustive && isInput {
            var differences: [ScenarioDiff.Difference] = []
            for i in 0..<max(expectedEffects.count, outcomes.effects.count) {
                let p = "/effects/\(i)"
                if i >= outcomes.effects.count {
                    differences.append(.init(pointer: p, expected: .object(expectedEffects[i]), actual: nil))
                } else if i >= expectedEffects.count {
                    differences.append(.init(pointer: p, expected: nil, actual: outcomes.effects[i].request))
                } else {
                    differences += ScenarioDiff.partial(expected: expectedEffects[i], actual: outcomes.effects[i].request, at: p)
                }
            }
            if !differences.isEmpty {
                let said = outcomes.effects.isEmpty ? "no effect was emitted" : "emitted: " + ScenarioRun.names(outcomes.effects)
                parts.append(("the effects are not the expected ones (\(said))", differences, []))
            }
        } else {
            var differences: [ScenarioDiff.Difference] = []
            for (i, e) in expectedEffects.enumerated() where !outcomes.effects.contains(where: { ScenarioDiff.partial(expected: e, actual: $0.request, at: "").isEmpty }) {
                differences.append(.init(pointer: "/effects/\(i)", expected: .object(e), actual: nil))
            }
            if !differences.isEmpty { parts.append(("an expected effect was not emitted", differences, [])) }
        }

        // Routes: in exhaustive mode every one, in order.
        let expectedRoutes = expect.routes ?? []
        if exhaustive && isInput {
            let differences = ScenarioDiff.differences(expected: .array(expectedRoutes), actual: .array(outcomes.routes), at: "/routes")
            if !differences.isEmpty { parts.append(("the routes are not the expected ones", differences, [])) }
        } else {
            var differences: [ScenarioDiff.Difference] = []
            for (i, r) in expectedRoutes.enumerated() where !outcomes.routes.contains(r) {
                differences.append(.init(pointer: "/routes/\(i)", expected: r, actual: nil))
            }
            if !differences.isEmpty { parts.append(("an expected route was not asked for", differences, [])) }
        }

        if let view = expect.view {
            let actual = readState(currentScene())?.viewModel ?? .null
            let differences = expect.viewExact || view.objectValue == nil
                ? ScenarioDiff.differences(expected: view, actual: actual, at: "/view")
                : ScenarioDiff.partial(expected: view.objectValue ?? [:], actual: actual, at: "/view")
            if !differences.isEmpty { parts.append(("the view model is not the expected one", differences, [])) }
        }

        if let stack = expect.stack {
            let actual: [JSON] = flow.map { f in
                scratch.lock.withLock { scratch.state.flows[f]?.flow.entries.map { JSON.string($0.name) } } ?? []
            } ?? [.string(scenario.subject.name)]
            let differences = ScenarioDiff.differences(expected: .array(stack.map(JSON.string)), actual: .array(actual), at: "/stack")
            if !differences.isEmpty { parts.append(("the flow's stack is not the expected one", differences, [])) }
        }

        if step.expectNoEffects {
            let stuck = inFlight()
            if !stuck.isEmpty {
                let differences = stuck.enumerated().map { (i, e) in ScenarioDiff.Difference(pointer: "/inFlight/\(i)", expected: nil, actual: e.request) }
                parts.append(("\(stuck.count) effect\(stuck.count == 1 ? " is" : "s are") in flight ("
                              + ScenarioRun.names(stuck) + "); none was expected", differences, []))
            }
        }
        return parts
    }

    /// Runs a step's input and writes what it did as the step's expectation:
    /// the state's changed members, the effects and the routes.
    mutating func record(_ step: Scenario.Step) -> Result<Scenario.Step, StepProblem> {
        let applied: Applied
        switch apply(step) {
        case .failure(let problem): return .failure(problem)
        case .success(let a): applied = a
        }
        defer { rememberStates() }
        if let refusal = applied.refusal {
            return .failure(StepProblem("the scene refused \(step.label): \(refusal.code): \(refusal.message)"))
        }
        if let error = applied.outcomes.errors.first { return .failure(StepProblem(error)) }
        var recorded = step
        var expect = Scenario.Expectation()
        if let now = readState(applied.subject)?.state, let before = states[applied.subject], now != before {
            guard case .object(let n) = now, case .object(let b) = before, b.keys.allSatisfy({ n[$0] != nil }) else {
                return .failure(StepProblem("\(step.label) changed the state in a way a scenario cannot state"))
            }
            expect.state = JSONObject(n.members.filter { b[$0.key] != $0.value }.map { ($0.key, $0.value) })
        }
        if !applied.outcomes.effects.isEmpty { expect.effects = applied.outcomes.effects.compactMap(\.request.objectValue) }
        if !applied.outcomes.routes.isEmpty { expect.routes = applied.outcomes.routes }
        recorded.expect = expect
        return .success(recorded)
    }

    /// The effect a resolve or perform step means, when it can take an outcome.
    func resolvable(_ ref: Scenario.EffectReference) -> Result<Int, StepProblem> {
        switch find(ref) {
        case .failure(let why): return .failure(why)
        case .success(let i):
            let e = emitted[i]
            if e.settled { return .failure(StepProblem("\(e.name) was resolved already")) }
            guard let record = scratch.lock.withLock({ scratch.state.effects[e.id] }) else {
                return .failure(StepProblem("the scene cancelled \(e.name) (a cancel, a successor with policy latest, its timeout, or its scene closed); it takes no outcome"))
            }
            if record.status == EffectTable.Record.Status.queued {
                return .failure(StepProblem("\(e.name) is queued behind an earlier effect with key \(ScenarioDiff.render(JSON(record.effect.id))); it starts only once those have ended"))
            }
            return .success(i)
        }
    }

    func outcomeValue(_ o: Outcome) -> JSON {
        switch o {
        case .success(let v), .failure(let v): v
        }
    }
}
