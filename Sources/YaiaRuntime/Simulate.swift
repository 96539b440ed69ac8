// The simulator (docs/simulation.md): random sequences of a document scene's
// actions and effect outcomes, its invariants checked after every step, and
// a failing sequence shrunk to a short scenario.
import YaiaCore
import YaiaKit

extension CatalogEntry {
    /// Whether the type declares invariants that `failingInvariants` checks.
    public var hasInvariants: Bool { invariants != nil }
}

extension Runtime {
    /// The invariants open scene `id` breaks now (none when its type
    /// declares none). `args`: the arguments it was opened with, which a
    /// document's invariants may read; nil when unknown (a restored scene).
    /// Never called on the send path.
    public func failingInvariants(scene id: Int64, args: JSON?) throws(YaiaError) -> [InvariantFailure] {
        let value = try lock.withLock { () throws(YaiaError) -> any LiveScene in
            guard let scene = state.scenes[id] else { throw RuntimeState.noSuchScene(id) }
            return scene.value
        }
        guard let check = try sceneType(value.name).invariants else { return [] }
        return try check(value, args, sceneValues())
    }

    /// The `simulate` request (docs/simulation.md).
    func simulate(_ o: JSONObject) throws(YaiaError) -> JSON {
        let request = try SimulationRequest(o, catalog: try simulationCatalog(o), limits: limits)
        return try request.run()
    }

    /// The calling runtime's scene types and the request's `scenes`, loaded
    /// as a scenario's are (paths from `base`, with the same grants).
    private func simulationCatalog(_ o: JSONObject) throws(YaiaError) -> Catalog {
        var catalog = self.catalog
        guard let list = o["scenes"] else { return catalog }
        guard case .array(let items) = list, case let paths = items.compactMap(\.stringValue), paths.count == items.count,
              !paths.contains("") else {
            throw YaiaError(.badRequest, "\"scenes\" is a list of paths: scene packs, documents or folders of them", at: "/scenes")
        }
        var base = "."
        if let b = o["base"] {
            guard case .string(let folder) = b, !folder.isEmpty else { throw YaiaError(.badRequest, "\"base\" is a folder's path", at: "/base") }
            base = folder
        }
        try loadScenarioScenes(paths, base: base, into: &catalog)
        return catalog
    }
}

/// One step of a simulated run.
enum SimulatedStep: Equatable {
    /// An action to the scene, or to its child at `path`.
    case send(Action, path: [JSON]?)
    /// Resolve the `pick`-th pending effect (in emission order, modulo their count).
    case resolve(pick: Int, Outcome)
    /// Move the manual clock (deadlines fire).
    case advance(Double)

    /// Simpler forms of the step, for shrinking.
    var simpler: [SimulatedStep] {
        switch self {
        case .send(let action, let path):
            guard let payload = action.payload else { return [] }
            return ValueGenerator.simpler(payload).map { .send(Action(action.type, payload: $0), path: path) }
        case .resolve(let pick, let outcome):
            var out: [SimulatedStep] = pick > 0 ? [.resolve(pick: 0, outcome)] : []
            switch outcome {
            case .success(let value): out += ValueGenerator.simpler(value).map { .resolve(pick: pick, .success($0)) }
            case .failure(let value): out += ValueGenerator.simpler(value).map { .resolve(pick: pick, .failure($0)) }
            }
            return out
        case .advance: return []
        }
    }
}

/// What a document scene takes, read from its schema (the `schema` op's).
struct SimulatedInterface {
    struct ActionShape {
        var name: String
        /// Nil: no payload declared.
        var payload: JSON?
        var payloadRequired: Bool
    }

    var actions: [String: ActionShape] = [:]
    /// The actions a host sends: all but those that receive effects'
    /// outcomes (`then`, `catch`), which come through resolved effects. The
    /// results of pushed scenes (`onResult`) are sent: no pushed scene runs.
    var sendable: [ActionShape] = []

    init(schema: JSON) {
        let defs = schema["$defs"]
        var receivers: Set<String> = []
        for e in defs?["effect"]?["oneOf"]?.arrayValue ?? [] {
            for key in ["then", "catch"] { if let n = e["properties"]?[key]?["const"]?.stringValue { receivers.insert(n) } }
        }
        var all: [ActionShape] = []
        for a in defs?["action"]?["oneOf"]?.arrayValue ?? [] {
            guard let name = a["properties"]?["type"]?["const"]?.stringValue else { continue }
            let required = a["required"]?.arrayValue?.contains("payload") ?? false
            let shape = ActionShape(name: name, payload: a["properties"]?["payload"], payloadRequired: required)
            actions[name] = shape
            all.append(shape)
        }
        sendable = all.filter { !receivers.contains($0.name) }
        if sendable.isEmpty { sendable = all }
    }

    /// The request's `actions`: each action type's payload schema, or null
    /// for an action without one. Every one is sent.
    init(actions json: JSON) throws(YaiaError) {
        guard case .object(let o) = json, !o.isEmpty else {
            throw YaiaError(.badRequest, "\"actions\" maps each action type to its payload's JSON Schema (null: no payload)", at: "/actions")
        }
        for (name, schema) in o {
            switch schema {
            case .null: actions[name] = ActionShape(name: name, payload: nil, payloadRequired: false)
            case .object, .bool: actions[name] = ActionShape(name: name, payload: schema, payloadRequired: true)
            default:
                throw YaiaError(.badRequest, "the payload of \"\(name)\" is declared by a JSON Schema (an object) or null for none",
                                at: JSONPointer.appending("/actions", name))
            }
            if let shape = actions[name] { sendable.append(shape) }
        }
    }
}

/// One internal runtime running one sequence: no services (every effect
/// waits to be resolved), a manual clock.
final class SimulatedSession {
    let runtime: Runtime
    let scene: String
    let args: JSON
    var id: Int64 = 0

    init(catalog: Catalog, scene: String, args: JSON, env: JSONObject, limits: Limits) {
        runtime = Runtime(catalog: catalog, workers: 1, limits: limits, clock: .manual(ManualClock()), env: env)
        self.scene = scene
        self.args = args
    }

    deinit { runtime.shutDown() }

    func open() throws(YaiaError) {
        let answer = try runtime.open(scene, args: args)
        id = answer["scene"]?.int64Value ?? 0
    }

    /// The effects waiting for the host, oldest first, and every one in flight.
    func effects() -> (pending: [EffectTable.Record], inFlight: [EffectTable.Record]) {
        let all = runtime.lock.withLock { runtime.state.effects.sceneRecords }
        return (all.filter { $0.status == .pending }, all)
    }

    /// The scenes below the scene, with their types and paths.
    func children() -> [(id: Int64, type: String, path: [JSON])] {
        runtime.lock.withLock { runtime.state.descendants(of: id) }
    }

    /// Applies a step; answers the scenario step that does the same, or
    /// throws when the runtime refuses it.
    func apply(_ step: SimulatedStep) throws(YaiaError) -> JSON {
        switch step {
        case .send(let action, let path):
            _ = try runtime.send(scene: try runtime.childTarget(of: id, path: path.map { JSON.array($0) }), action: action)
            var o: JSONObject = ["send": .string(action.type)]
            if let payload = action.payload { o["payload"] = payload }
            if let path { o["path"] = .array(path) }
            return .object(o)
        case .resolve(let pick, let outcome):
            let (pending, inFlight) = effects()
            guard !pending.isEmpty else { throw YaiaError(.noSuchEffect, "no effect is pending") }
            let record = pending[pick % pending.count]
            _ = try runtime.resolve(effect: record.id, outcome: outcome)
            // By name when it is the oldest of its name in flight, else by its place among the effects emitted.
            let name = record.effect.service + "." + record.effect.op
            let oldest = inFlight.first { $0.effect.service == record.effect.service && $0.effect.op == record.effect.op }
            var o: JSONObject = ["resolve": oldest?.id == record.id ? .string(name) : .int(record.id)]
            switch outcome {
            case .success(let value): o["result"] = value
            case .failure(let value): o["error"] = value
            }
            return .object(o)
        case .advance(let seconds):
            _ = try runtime.advance(by: seconds)
            return ["advance": JSON(seconds)]
        }
    }

    /// The invariants the scene and the scenes below it break. Invariants
    /// that cannot be checked (a pack's unreadable answer) are an error,
    /// never "all hold".
    func failures() throws(YaiaError) -> [InvariantFailure] {
        var failures = try runtime.failingInvariants(scene: id, args: args)
        for child in children() {
            let args = runtime.lock.withLock { runtime.state.childArgs(of: child.id) }
            failures += try runtime.failingInvariants(scene: child.id, args: args)
        }
        return failures
    }
}

/// A `simulate` request, read and checked.
struct SimulationRequest {
    let catalog: Catalog
    let scene: String
    /// The invariants checked, when the scene can name them all (a document).
    let invariantNames: [String]?
    let interface: SimulatedInterface
    /// The interfaces of the documents a child may be: children of other
    /// scene types are not sent to (their invariants are checked).
    let childInterfaces: [String: SimulatedInterface]
    let runs: Int
    let seed: UInt64
    /// The seed as the request gave it, for the answer.
    let givenSeed: JSON
    let steps: Int
    let args: JSON
    let env: JSONObject
    let scenes: JSON?
    let limits: Limits
    let generator = ValueGenerator()

    static let maxRuns = 100_000
    static let maxSteps = 1_000
    /// The most steps one request may take, over all its runs.
    static let maxWork = 1_000_000
    /// Replays a shrink may try.
    static let shrinkBudget = 2_000
    /// How often a step resolves a pending effect, and how often an outcome is an error.
    static let resolveChance = 0.4
    static let errorChance = 0.25
    static let advanceChance = 0.1
    static let childChance = 0.5

    init(_ o: JSONObject, catalog: Catalog, limits: Limits) throws(YaiaError) {
        scene = try o.string("scene", code: .badRequest)
        guard let entry = catalog[scene] else {
            throw YaiaError(.unknownScene, "no scene type named \"\(scene)\"" + Suggestion.hint(scene, among: catalog.names), at: "/scene")
        }
        if let actions = o["actions"] {
            interface = try SimulatedInterface(actions: actions)
        } else if let document = entry.document {
            interface = SimulatedInterface(schema: document.document.schema)
        } else {
            throw YaiaError(.notSimulatable, "\(scene) is a Swift scene (\(entry.definedBy)) whose actions' payloads are not declared: "
                            + "give them as \"actions\": {TYPE: PAYLOAD_SCHEMA|null, ...}", at: "/scene")
        }
        invariantNames = entry.document?.document.invariantNames
        var childInterfaces: [String: SimulatedInterface] = [:]
        for name in catalog.documents {
            if let document = catalog[name]?.document { childInterfaces[name] = SimulatedInterface(schema: document.document.schema) }
        }
        self.childInterfaces = childInterfaces
        func count(_ key: String, _ fallback: Int, _ max: Int) throws(YaiaError) -> Int {
            guard o[key] != nil else { return fallback }
            let n = try o.integer(key, code: .badRequest)
            guard n >= 1, n <= Int64(max) else { throw YaiaError(.badRequest, "\"\(key)\" is a whole number from 1 to \(max)", at: "/" + key) }
            return Int(n)
        }
        runs = try count("runs", 100, Self.maxRuns)
        steps = try count("steps", 20, Self.maxSteps)
        guard runs * steps <= Self.maxWork else {
            throw YaiaError(.badRequest, "\"runs\" times \"steps\" is at most \(Self.maxWork)", at: "/runs")
        }
        givenSeed = o["seed"] ?? 0
        switch o["seed"] {
        case nil: seed = 0
        case .int(let i)?: seed = UInt64(bitPattern: i)
        case .uint(let u)?: seed = u
        default: throw YaiaError(.badRequest, "\"seed\" is a whole number", at: "/seed")
        }
        args = o["args"] ?? [:]
        guard case .object = args else { throw YaiaError(.notAnObject, "\"args\" must be an object, not \(args.kindName)", at: "/args") }
        switch o["env"] {
        case nil: env = [:]
        case .object(let values)?:
            guard values["now"] == nil else { throw YaiaError(.badRequest, "env.now is the manual clock's; it cannot be set", at: "/env/now") }
            env = values
        case let other?: throw YaiaError(.notAnObject, "\"env\" must be an object, not \(other.kindName)", at: "/env")
        }
        scenes = o["scenes"]
        self.catalog = catalog
        self.limits = limits
    }

    func session() -> SimulatedSession { SimulatedSession(catalog: catalog, scene: scene, args: args, env: env, limits: limits) }

    func run() throws(YaiaError) -> JSON {
        var rng = SplitMix64(seed: seed)
        var answer: JSONObject = ["ok": true]
        if let invariantNames { answer["invariants"] = .array(invariantNames.map(JSON.string)) }
        for run in 1...runs {
            let found: (steps: [SimulatedStep], failure: InvariantFailure)
            do throws(YaiaError) {
                guard let f = try explore(&rng) else { continue }
                found = f
            } catch {
                // The scene locates faults within its arguments.
                throw error.code == .badArgs ? error.nested(under: "/args") : error
            }
            var shrinker = Shrinker<SimulatedStep>(budget: Self.shrinkBudget)
            let shrunk = shrinker.shrink(found.steps, simpler: \.simpler) { replay($0, breaking: found.failure.name) }
            let scenario = self.scenario(shrunk, run: run, invariant: found.failure.name)
            answer["passed"] = false
            answer["run"] = .int(Int64(run))
            answer["seed"] = givenSeed
            answer["invariant"] = .string(found.failure.name)
            answer["message"] = .string(found.failure.message)
            answer["scenario"] = scenario
            answer["steps"] = .int(Int64(scenario["steps"]?.arrayValue?.count ?? 0))
            answer["found"] = .int(Int64(found.steps.count))
            return .object(answer)
        }
        answer["passed"] = true
        answer["runs"] = .int(Int64(runs))
        return .object(answer)
    }

    /// One random run: the steps taken and the first invariant broken, or
    /// nil when none is. A scene that cannot open is an error.
    func explore(_ rng: inout SplitMix64) throws(YaiaError) -> (steps: [SimulatedStep], failure: InvariantFailure)? {
        let session = session()
        try session.open()
        if let failure = try session.failures().first { return ([], failure) }
        var taken: [SimulatedStep] = []
        for _ in 0..<steps {
            let step = choose(session, &rng)
            // A step the scene refuses (a payload a `when` or a budget turns down, an outcome it cannot read) is no step.
            guard (try? session.apply(step)) != nil else { continue }
            taken.append(step)
            if let failure = try session.failures().first { return (taken, failure) }
        }
        return nil
    }

    func choose(_ session: SimulatedSession, _ rng: inout SplitMix64) -> SimulatedStep {
        let (pending, inFlight) = session.effects()
        if !pending.isEmpty && rng.chance(Self.resolveChance) {
            let pick = rng.below(pending.count)
            let effect = pending[pick].effect
            if rng.chance(Self.errorChance) {
                let schema = effect.catch.flatMap { interface.actions[$0]?.payload }
                return .resolve(pick: pick, .failure(schema.map { generator.value($0, &rng) } ?? ["message": "simulated failure"]))
            }
            let schema = effect.then.flatMap { interface.actions[$0]?.payload }
            return .resolve(pick: pick, .success(schema.map { generator.value($0, &rng) } ?? .null))
        }
        if let timeout = inFlight.compactMap(\.effect.timeout).max(), rng.chance(Self.advanceChance) {
            return .advance(timeout)
        }
        // Half the sends go to a child, when the scene has children of a known interface.
        let children = session.children().filter { childInterfaces[$0.type] != nil }
        if !children.isEmpty && rng.chance(Self.childChance), let child = rng.pick(children),
           let shape = rng.pick(childInterfaces[child.type]?.sendable ?? []) {
            return .send(action(shape, &rng), path: child.path)
        }
        guard let shape = rng.pick(interface.sendable) else { return .advance(0) }
        return .send(action(shape, &rng), path: nil)
    }

    /// An action of `shape`, its payload drawn from its schema.
    func action(_ shape: SimulatedInterface.ActionShape, _ rng: inout SplitMix64) -> Action {
        guard let schema = shape.payload else { return Action(shape.name) }
        if !shape.payloadRequired && rng.chance(0.2) { return Action(shape.name) }
        return Action(shape.name, payload: generator.value(schema, &rng))
    }

    /// Replays `steps` in a new session: the prefix that ends where
    /// invariant `name` first breaks, or nil when it never does, a step is
    /// refused, or another invariant breaks first (the scenario must fail
    /// at its last step, for `name`).
    func replay(_ steps: [SimulatedStep], breaking name: String) -> [SimulatedStep]? {
        let session = session()
        guard (try? session.open()) != nil else { return nil }
        func broken() -> Bool? {
            guard let failures = try? session.failures() else { return nil }
            if failures.contains(where: { $0.name == name }) { return true }
            return failures.isEmpty ? false : nil
        }
        switch broken() {
        case true?: return []
        case nil: return nil
        case false?: break
        }
        for (i, step) in steps.enumerated() {
            guard (try? session.apply(step)) != nil else { return nil }
            switch broken() {
            case true?: return Array(steps[...i])
            case nil: return nil
            case false?: continue
            }
        }
        return nil
    }

    /// The scenario file of `steps` (docs/scenarios.md): non-exhaustive,
    /// its last step breaking the invariant.
    func scenario(_ steps: [SimulatedStep], run: Int, invariant: String) -> JSON {
        let session = session()
        var list: [JSON] = []
        if (try? session.open()) != nil {
            for step in steps {
                guard let json = try? session.apply(step) else { break }
                list.append(json)
            }
        }
        var o: JSONObject = ["yaia": 1, "name": .string("\(scene) breaks \(invariant) (simulated: seed \(givenSeed), run \(run))")]
        if let scenes { o["scenes"] = scenes }
        o["scene"] = .string(scene)
        if args != [:] { o["args"] = args }
        if !env.isEmpty { o["env"] = .object(env) }
        o["exhaustive"] = false
        o["steps"] = .array(list)
        return .object(o)
    }
}
