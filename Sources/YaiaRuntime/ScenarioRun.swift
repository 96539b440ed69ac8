// One run of a scenario: its scratch runtime started, each step's input applied and what it made happen collected.
import YaiaCore
import YaiaKit

/// Why a step could not run.
struct StepProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Why a scenario failed: the step, what went wrong, and where.
struct ScenarioFailure {
    var step: Int
    var label: String
    var parts: [(message: String, differences: [ScenarioDiff.Difference], notes: [String])]

    /// At most `ScenarioDiff.maxDifferences` differences are reported, in the answer and in the text.
    var json: JSON {
        let message = parts.map(\.message).joined(separator: "; ")
        var left = ScenarioDiff.maxDifferences
        var text = "step \(step) (\(label)): "
        text += parts.map { part in
            let shown = part.differences.prefix(left)
            left -= shown.count
            let dropped = part.differences.count - shown.count
            return part.message + (part.differences.isEmpty && part.notes.isEmpty ? "" : ":")
                + shown.map { "\n  " + $0.line }.joined() + (dropped > 0 ? "\n  … and \(dropped) more" : "")
                + part.notes.map { "\n  " + $0 }.joined()
        }.joined(separator: "\n")
        let differences = parts.flatMap(\.differences).prefix(ScenarioDiff.maxDifferences)
        return ["step": .int(Int64(step)), "label": .string(label), "message": .string(message),
                "differences": .array(differences.map(\.json)), "text": .string(text)]
    }
}

/// One run of a scenario in its scratch runtime.
struct ScenarioRun {
    let scenario: Scenario
    let scratch: Runtime
    let caller: Runtime

    /// An effect the scenario saw emitted.
    struct Emitted {
        let number: Int
        let id: Int64
        let request: JSON
        var settled = false

        var name: String {
            "#\(number) \(request["service"]?.stringValue ?? "?").\(request["op"]?.stringValue ?? "?")"
        }
    }

    var emitted: [Emitted] = []
    /// The scene under test, or the flow's id.
    var scene: Int64 = 0
    var flow: Int64?
    /// Each open scene's state after the previous step.
    var states: [Int64: JSON] = [:]

    init(scenario: Scenario, scratch: Runtime, caller: Runtime) {
        self.scenario = scenario
        self.scratch = scratch
        self.caller = caller
    }

    /// What one step made happen.
    struct Outcomes {
        var effects: [Emitted] = []
        var routes: [JSON] = []
        var errors: [String] = []
    }

    mutating func run() -> ScenarioFailure? {
        if let problem = start() {
            return ScenarioFailure(step: 0, label: "open \(scenario.subject.name)", parts: [(problem.message, [], [])])
        }
        let broken = brokenInvariants()
        if !broken.isEmpty { return ScenarioFailure(step: 0, label: "open \(scenario.subject.name)", parts: broken) }
        for (i, step) in scenario.steps.enumerated() {
            let parts = perform(step)
            if !parts.isEmpty {
                return ScenarioFailure(step: i + 1, label: step.label, parts: parts)
            }
        }
        guard scenario.exhaustive else { return nil }
        let stuck = inFlight()
        guard !stuck.isEmpty else { return nil }
        let failure = ExhaustiveRules.inFlight(stuck.map(\.request), names: ScenarioRun.names(stuck))
        return ScenarioFailure(step: scenario.steps.count + 1, label: "end", parts: [(failure.message, failure.differences, failure.notes)])
    }

    /// `#1 auth.login, #2 store.get`, the first ten.
    static func names(_ effects: [Emitted]) -> String {
        effects.prefix(10).map(\.name).joined(separator: ", ") + (effects.count > 10 ? ", …" : "")
    }

    /// Opens the scene or starts the flow.
    mutating func start() -> StepProblem? {
        let opened: JSON
        do throws(YaiaError) {
            switch scenario.subject {
            case .scene(let name):
                opened = try scratch.open(name, args: scenario.args, state: scenario.state)
                scene = opened["scene"]?.int64Value ?? 0
            case .flow(let name):
                opened = try scratch.startFlow(name: nil, scene: name, args: scenario.args)
                scene = opened["scene"]?.int64Value ?? 0
                flow = opened["flow"]?.int64Value
            }
        } catch {
            return StepProblem("the scene could not be opened: \(error.code): \(error.message)" + (error.at.map { " (at \($0))" } ?? ""))
        }
        var outcomes = Outcomes()
        collect(opened, into: &outcomes)
        drainEvents(into: &outcomes)
        rememberStates()
        return nil
    }

    /// The effects the scenario saw emitted that are still in flight in the scratch runtime.
    func inFlight() -> [Emitted] {
        let live = scratch.lock.withLock { scratch.state.effects.records }
        return emitted.filter { !$0.settled && live[$0.id] != nil }
    }

    /// The scene a step without a scene of its own is about: a flow's top, or the scene.
    func currentScene() -> Int64 {
        guard let flow else { return scene }
        let top = scratch.lock.withLock { scratch.state.flows[flow]?.flow.top.scene }
        return top ?? scene
    }

    func readState(_ id: Int64) -> (state: JSON, viewModel: JSON)? {
        guard let answer = try? scratch.state(scene: id) else { return nil }
        return (answer["state"] ?? .null, answer["viewModel"] ?? .null)
    }

    mutating func rememberStates() {
        let scenes = scratch.lock.withLock { scratch.state.scenes.values }
        // A state that cannot be read is not remembered: the step's own reading fails.
        states = Dictionary(uniqueKeysWithValues: scenes.compactMap { scene in (try? scene.value.json).map { (scene.id, $0) } })
    }

    /// Keeps what an update emitted.
    mutating func collect(_ update: JSON, into outcomes: inout Outcomes) {
        for e in update["effects"]?.arrayValue ?? [] {
            guard let id = e["id"]?.int64Value else { continue }
            let request = scratch.lock.withLock { scratch.state.effects[id]?.effect.json }
                ?? JSON.object(JSONObject([("service", e["service"] ?? .null), ("op", e["op"] ?? .null), ("args", e["args"] ?? .null)]))
            let record = Emitted(number: emitted.count + 1, id: id, request: request)
            emitted.append(record)
            outcomes.effects.append(record)
        }
        outcomes.routes += update["routes"]?.arrayValue ?? []
        for n in update["navigationErrors"]?.arrayValue ?? [] {
            outcomes.errors.append("the flow refused route \(ScenarioDiff.render(n["route"] ?? .null)): \(n["error"]?["message"]?.stringValue ?? "")")
        }
    }

    /// Updates the scratch runtime queued: outcomes delivered to other scenes, time-outs.
    mutating func drainEvents(into outcomes: inout Outcomes) {
        while let event = scratch.receive(timeout: 0) {
            if event["ok"] == .bool(false) {
                outcomes.errors.append("scene \(event["scene"]?.int64Value ?? 0) refused an outcome: \(event["error"]?["message"]?.stringValue ?? "")")
            } else {
                collect(event, into: &outcomes)
            }
        }
    }

    func find(_ ref: Scenario.EffectReference) -> Result<Int, StepProblem> {
        switch ref {
        case .number(let n):
            guard n <= emitted.count else { return .failure(StepProblem("the scenario has seen \(emitted.count) effect\(emitted.count == 1 ? "" : "s") emitted, not \(n)")) }
            return .success(n - 1)
        case .named(let service, let op):
            let live = scratch.lock.withLock { scratch.state.effects.records }
            if let i = emitted.firstIndex(where: { !$0.settled && live[$0.id] != nil && $0.request["service"]?.stringValue == service && $0.request["op"]?.stringValue == op }) {
                return .success(i)
            }
            let flying = inFlight()
            return .failure(StepProblem("no \(service).\(op) effect is in flight" + (flying.isEmpty ? " (none is)" : " (in flight: " + ScenarioRun.names(flying) + ")")))
        }
    }

    typealias Part = (message: String, differences: [ScenarioDiff.Difference], notes: [String])

    /// What a step's input did.
    struct Applied {
        /// The scene whose state the step is about.
        var subject: Int64
        var outcomes = Outcomes()
        var refusal: YaiaError?
        /// The child a step's `path` names, whose view it states.
        var child: Int64?
    }

    /// Runs a step's input and collects what it made happen.
    mutating func apply(_ step: Scenario.Step) -> Result<Applied, StepProblem> {
        var outcomes = Outcomes()
        var subject = currentScene()
        var response: JSON?
        var refusal: YaiaError?
        var child: Int64?
        switch step.input {
        case .send(let action):
            do throws(YaiaError) {
                if let path = step.path {
                    // A fault in the path is the input's: a step may expect `no_such_child`.
                    let target = try scratch.childTarget(of: subject, path: .array(path))
                    child = target
                    response = try scratch.send(scene: target, action: action)
                } else if let flow { response = try scratch.send(flow: flow, action: action) } else { response = try scratch.send(scene: scene, action: action) }
            } catch {
                refusal = error
            }
        case .resolve(let ref, let outcome):
            switch resolvable(ref) {
            case .failure(let why): return .failure(why)
            case .success(let i):
                subject = scratch.lock.withLock { scratch.state.effects[emitted[i].id]?.scene } ?? subject
                do throws(YaiaError) {
                    response = try scratch.resolve(effect: emitted[i].id, outcome: outcome)
                    emitted[i].settled = true
                } catch {
                    // The scene reads the outcome as its action's payload: point into the outcome instead.
                    var moved = error
                    if let at = error.at { moved.at = at.hasPrefix("/payload") ? String(at.dropFirst("/payload".count)) : nil }
                    refusal = moved
                }
            }
        case .perform(let ref):
            switch resolvable(ref) {
            case .failure(let why): return .failure(why)
            case .success(let i):
                let outcome: Outcome
                do throws(YaiaError) {
                    let answer = try caller.perform(try Effect(json: emitted[i].request))
                    outcome = answer["ok"] == .bool(true) ? .success(answer["result"] ?? .null) : .failure(answer["error"] ?? .null)
                } catch {
                    return .failure(StepProblem("the calling runtime could not perform \(emitted[i].name): \(error.code): \(error.message)"))
                }
                subject = scratch.lock.withLock { scratch.state.effects[emitted[i].id]?.scene } ?? subject
                do throws(YaiaError) {
                    response = try scratch.resolve(effect: emitted[i].id, outcome: outcome)
                    emitted[i].settled = true
                } catch {
                    return .failure(StepProblem("the scene refused the outcome the services gave \(emitted[i].name), \(ScenarioDiff.render(outcomeValue(outcome), limit: 120)): \(error.code): \(error.message)"))
                }
            }
        case .advance(let seconds):
            do throws(YaiaError) {
                _ = try scratch.advance(by: seconds)
            } catch {
                return .failure(StepProblem("the clock could not advance: \(error.message)"))
            }
        case .none:
            guard let path = step.path else { break }
            do throws(YaiaError) {
                subject = try scratch.childTarget(of: subject, path: .array(path))
                child = subject
            } catch {
                return .failure(StepProblem("no child at \(JSON.array(path).serialized()): \(error.message)"))
            }
        }
        if let response {
            collect(response, into: &outcomes)
            if let id = response["scene"]?.int64Value { subject = id }
        }
        drainEvents(into: &outcomes)
        return .success(Applied(subject: subject, outcomes: outcomes, refusal: refusal, child: child))
    }

    /// Runs one step; the parts of its failure, or an empty list when it passed.
    mutating func perform(_ step: Scenario.Step) -> [Part] {
        let applied: Applied
        switch apply(step) {
        case .failure(let problem): return [(problem.message, [], [])]
        case .success(let a): applied = a
        }
        defer { rememberStates() }
        let parts = check(step, applied)
        return parts.isEmpty ? brokenInvariants() : parts
    }

    /// The invariants the open scenes break, as a failure's parts.
    func brokenInvariants() -> [Part] {
        let ids = scratch.lock.withLock { scratch.state.scenes.values.map(\.id) }
        var parts: [Part] = []
        for id in ids {
            // The scene under test has known args, but not when it was given a state; a child, those its parent gave.
            let args: JSON? = id == scene ? (scenario.state == nil ? scenario.args : nil)
                : scratch.lock.withLock { scratch.state.childArgs(of: id) }
            do throws(YaiaError) {
                for failure in try scratch.failingInvariants(scene: id, args: args) { parts.append((failure.message, [], [])) }
            } catch {
                // Invariants that cannot be checked never count as holding.
                parts.append(("the invariants of scene \(id) cannot be checked: \(error.code): \(error.message)", [], []))
            }
        }
        return parts
    }
}
