// A step's expectations: what its input did checked against them by the
// exhaustive rules (ExhaustiveRules), or written as them when recording.
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
        let rules = ExhaustiveRules(exhaustive: exhaustive)
        func add(_ failure: ExhaustiveRules.Failure?) {
            if let f = failure { parts.append((f.message, f.differences, f.notes)) }
        }

        if let now = readState(subject)?.state {
            if let base = rules.stateBase(stated: expect.state != nil, input: isInput) {
                let (expected, nowhere) = ExhaustiveRules.applying(
                    (expect.state?.members ?? []).map { ($0.key, $0.value) }, to: base == .previous ? states[subject] ?? now : now)
                var failure = rules.state(expected: expected, actual: now, stated: expect.state != nil, unstated: "\"state\"", at: "/state")
                if !nowhere.isEmpty {
                    failure = failure ?? .init("the state is not the expected one")
                    failure?.notes = nowhere.map { "/state\($0): the expected change has nowhere to go" }
                }
                add(failure)
            }
        } else if expect.state != nil {
            parts.append(("the scene closed (a route of its own popped or dismissed it): its state cannot be read; state no \"state\" for this step", [], []))
        }
        add(rules.stepEffects(expected: expect.effects ?? [], actual: outcomes.effects.map(\.request),
                              emitted: ScenarioRun.names(outcomes.effects), input: isInput))
        add(rules.stepRoutes(expected: expect.routes ?? [], actual: outcomes.routes, input: isInput))

        if let view = expect.view {
            let actual = readState(applied.child ?? currentScene())?.viewModel ?? .null
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
                let differences = stuck.enumerated().map { (i, e) in
                    ScenarioDiff.Difference(pointer: "/inFlight/\(i)", expected: nil, actual: e.request, inArray: true)
                }
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
