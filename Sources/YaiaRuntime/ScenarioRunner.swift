// The `scenario` request: a scenario file (docs/scenarios.md) run in a
// scratch runtime with no services and a manual clock, step by step, with
// the exhaustive rules of the testing kit.
import Glibc
import YaiaCore

extension Runtime {
    /// `{"op": "scenario", "scenario": {...}, "base": DIR}` or `{"op": "scenario", "path": FILE}`.
    func scenarioRequest(_ o: JSONObject) throws(YaiaError) -> JSON {
        let json: JSON
        var base = "."
        var fileName: String?
        switch (o["scenario"], o["path"]) {
        case (let s?, nil):
            json = s
        case (nil, .string(let path)?):
            let file = try grants.openBeneath(path, at: "/path", flags: O_RDONLY, code: .badRequest, missing: .badRequest, type: S_IFREG)
            json = try readScenarioFile(file)
            base = parentFolder(of: file.path)
            fileName = String(file.path.split(separator: "/").last ?? "")
        case (nil, let p?):
            throw YaiaError(.badRequest, "\"path\" names a scenario file: a string, not \(p.kindName)", at: "/path")
        default:
            throw YaiaError(.badRequest, "scenario takes {\"scenario\": {...}} or {\"path\": FILE}", at: "/scenario")
        }
        if let b = o["base"] {
            guard case .string(let folder) = b, !folder.isEmpty else {
                throw YaiaError(.badRequest, "\"base\" is the folder a scenario's paths are relative to", at: "/base")
            }
            base = folder
        }
        let scenario: Scenario
        do throws(YaiaError) {
            scenario = try Scenario(json)
        } catch {
            throw o["path"] == nil ? error.nested(under: "/scenario") : error
        }
        let name = scenario.name ?? fileName.map(Runtime.scenarioName(file:)) ?? "scenario"
        do throws(YaiaError) {
            return try run(scenario, name: name, base: base)
        } catch {
            // A scene source's fault lies in the request's scenario.
            throw o["path"] == nil && error.at?.hasPrefix("/scenes") == true ? error.nested(under: "/scenario") : error
        }
    }

    /// `login.scenario.json` -> `login`.
    static func scenarioName(file: String) -> String {
        for suffix in [".scenario.json", ".json"] where file.hasSuffix(suffix) && file.count > suffix.count {
            return String(file.dropLast(suffix.count))
        }
        return file
    }

    /// A scenario file as JSON, within the request limits; the file is closed.
    func readScenarioFile(_ file: OpenedFile) throws(YaiaError) -> JSON {
        let (fd, path) = (file.fd, file.path)
        defer { Glibc.close(fd) }
        let bytes = try readAll(fd, path: path, limit: limits.requestBytes, code: .badRequest, at: "/path") { count in
            YaiaError.limit("request_bytes", limits.requestBytes, "a JSON text of \(counted(count, "byte"))")
        }
        do throws(YaiaError) {
            return try bytes.withUnsafeBufferPointer { (b) throws(YaiaError) in try JSONParser.parse(b, maxDepth: limits.depth + Limits.wrapping) }
        } catch {
            var e = YaiaError(.badScenario, "\(path) is not JSON: \(error.message)", at: "")
            e.problems = [["code": "not_json", "message": .string(error.message), "at": ""]]
            throw e
        }
    }

    /// Runs `scenario`; `base` is the folder its `scenes` paths are relative to.
    public func run(_ scenario: Scenario, name: String, base: String) throws(YaiaError) -> JSON {
        var catalog = self.catalog
        if !scenario.scenes.isEmpty {
            try loadScenarioScenes(scenario.scenes, base: base, into: &catalog)
        }
        if scenario.steps.contains(where: { if case .perform = $0.input { return true } else { return false } }) {
            try grants.check(Op.perform)
        }
        let scratch = Runtime(catalog: catalog, workers: 1, limits: limits, clock: .manual(ManualClock(now: scenario.now)), env: scenario.env)
        defer { scratch.shutDown() }
        var run = ScenarioRun(scenario: scenario, scratch: scratch, caller: self)
        let failure = run.run()
        var answer: JSONObject = ["ok": true, "name": .string(name), "passed": .bool(failure == nil), "steps": .int(Int64(scenario.steps.count))]
        if let failure { answer["failure"] = failure.json }
        return .object(answer)
    }

    /// Adds the scenario's scene sources to `catalog`, paths from `base`.
    /// A source the calling runtime has loaded already (the same file) is
    /// skipped. Any other is confined to the granted folders, and needs the
    /// grant of the op that would add it: a pack runs code (`load_plugin`),
    /// a document adds a scene type (`register`).
    func loadScenarioScenes(_ paths: [String], base: String, into catalog: inout Catalog) throws(YaiaError) {
        let loaded = Set(catalog.packs.compactMap { canonicalPath($0.path) }
                         + catalog.documents.compactMap { name -> String? in
                             if case .file(let f)? = catalog[name]?.origin { return canonicalPath(f) }
                             return nil
                         })
        func isLoaded(_ path: String) -> Bool { canonicalPath(path).map(loaded.contains) ?? false }
        var wanted: [JSON] = []
        /// The index in `paths` of each entry of `wanted`.
        var from: [Int] = []
        for (i, path) in paths.enumerated() {
            let at = JSONPointer.appending("/scenes", i)
            var full = path.hasPrefix("/") ? path : (base.hasSuffix("/") ? base : base + "/") + path
            while full.count > 1 && full.hasSuffix("/") { full.removeLast() }
            if isLoaded(full) { continue }
            let files: [String]
            let isPack: Bool
            switch SceneSource(full) {
            case .folder(let folder):
                let real = canonicalPath(folder) ?? folder
                guard grants.directories.contains(where: { real == $0 || beneath(real, $0) }) else {
                    throw YaiaError(.notPermitted, "\(path): the folder lies outside the directories the config grants requests", at: at)
                }
                (files, isPack) = (try documentFiles(in: real, files: .granted(grants, at: at)).filter { !isLoaded($0) }, false)
            case .document(let file): (files, isPack) = ([try grants.confine(file, at: at)], false)
            case .pack(let file): (files, isPack) = ([try grants.confine(file, at: at)], true)
            }
            guard !files.isEmpty else { continue }
            let op = isPack ? Op.loadPlugin.name : Op.register.name
            guard grants.ops.contains(op) else {
                throw YaiaError(.notPermitted, "the scenario loads \(path), which needs the \"\(op)\" grant on this runtime's requests: {\"allow\": {\"ops\": [\"\(op)\"]}}", at: at)
            }
            for file in files {
                // A folder's files too: a link in it must not lead out of the granted folders.
                wanted.append(.string(try grants.confine(file, at: at)))
                from.append(i)
            }
        }
        guard !wanted.isEmpty else { return }
        do throws(YaiaError) {
            try catalog.load(.array(wanted), at: "/scenes", depth: limits.depth, files: .granted(grants, at: "/scenes"))
        } catch {
            // Point at the scenario's own entry, not at the list loaded.
            var moved = error
            if let at = error.at, at.hasPrefix("/scenes/"),
               let index = Int(at.dropFirst("/scenes/".count).prefix { $0 != "/" }), index < from.count {
                moved.at = JSONPointer.appending("/scenes", from[index])
            }
            throw moved
        }
    }
}

func parentFolder(of path: String) -> String {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
    return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
}

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
        let them = stuck.count == 1 ? "it" : "them"
        let differences = stuck.enumerated().map { (i, e) in
            ScenarioDiff.Difference(pointer: "/inFlight/\(i)", expected: nil, actual: e.request)
        }
        return ScenarioFailure(step: scenario.steps.count + 1, label: "end",
                               parts: [("\(stuck.count) effect\(stuck.count == 1 ? " is" : "s are") still in flight ("
                                        + ScenarioRun.names(stuck) + "): resolve \(them), or have the scene cancel \(them)", differences, [])])
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
    }

    /// Runs a step's input and collects what it made happen.
    mutating func apply(_ step: Scenario.Step) -> Result<Applied, StepProblem> {
        var outcomes = Outcomes()
        var subject = currentScene()
        var response: JSON?
        var refusal: YaiaError?
        switch step.input {
        case .send(let action):
            do throws(YaiaError) {
                if let flow { response = try scratch.send(flow: flow, action: action) } else { response = try scratch.send(scene: scene, action: action) }
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
            break
        }
        if let response {
            collect(response, into: &outcomes)
            if let id = response["scene"]?.int64Value { subject = id }
        }
        drainEvents(into: &outcomes)
        return .success(Applied(subject: subject, outcomes: outcomes, refusal: refusal))
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
            // Only the scene under test has known args, and not when it was given a state.
            let args: JSON? = id == scene && scenario.state == nil ? scenario.args : nil
            do throws(YaiaError) {
                for failure in try scratch.failingInvariants(scene: id, args: args) { parts.append((failure.message, [], [])) }
            } catch {
                // Invariants that cannot be checked never count as holding.
                parts.append(("the invariants of scene \(id) cannot be checked: \(error.code): \(error.message)", [], []))
            }
        }
        return parts
    }

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
