// A recorded journal as scenario files: the session someone clicked through
// becomes a test (docs/scenarios.md).
import YaiaCore
import YaiaKit

extension Runtime {
    /// One scene's part of a journal: how it opened and the inputs it reduced.
    private struct Track {
        let id: Int64
        let name: String
        let args: JSON
        let state: JSON?
        var inputs: [Scenario.Input] = []
        /// The ids of the effects it emitted, in order.
        var effects: [Int64] = []
    }

    /// `scenario_from_journal`: the journal re-run in a scratch runtime with
    /// no services (as `replay` does), each reduction watched, then one
    /// scenario per scene, its expectations recorded by running it.
    func scenariosFromJournal(path: String, files: FileAccess = .host) throws(YaiaError) -> JSON {
        var lines = try JournalLines(path: path, maxLine: limits.requestBytes, files: files)
        let path = lines.path
        let scratch = Runtime(catalog: catalog, workers: 1, limits: limits)
        scratch.replaying = true
        scratch.setInspecting(true)
        defer { scratch.shutDown() }

        var tracks: [Track] = []
        /// Open scenes' tracks, by scene id.
        var current: [Int64: Int] = [:]
        func track(_ id: Int64, args: JSON = [:], state: JSON? = nil, name: String? = nil) throws(YaiaError) -> Int? {
            if let t = current[id] { return t }
            guard let scene = scratch.lock.withLock({ scratch.state.scenes[id] }) else { return nil }
            tracks.append(Track(id: id, name: name ?? scene.value.name, args: args, state: args == [:] && state == nil ? try scene.value.json : state))
            current[id] = tracks.count - 1
            return tracks.count - 1
        }
        func trackNewScenes() throws(YaiaError) {
            for scene in scratch.lock.withLock({ scratch.state.scenes.values }) where current[scene.id] == nil {
                _ = try track(scene.id)
            }
        }

        /// How a scenario names effect `id` of a track: the oldest in flight of its name by name, any other by number.
        func reference(_ id: Int64, in track: Track, live: IDMap<EffectTable.Record>) -> Scenario.EffectReference? {
            guard let n = track.effects.firstIndex(of: id), let record = live[id] else { return nil }
            let first = track.effects.first { live[$0].map { $0.effect.service == record.effect.service && $0.effect.op == record.effect.op } ?? false }
            return first == id && !record.effect.service.contains(".") ? .named(service: record.effect.service, op: record.effect.op) : .number(n + 1)
        }

        var begun = false
        while let line = try lines.next() {
            if line.isEmpty { continue }
            func bad(_ message: String, at: String? = nil) -> YaiaError {
                YaiaError(.badJournal, "line \(lines.number) of \(path): \(message)", at: at)
            }
            let (o, kind) = try Runtime.journalRecord(line, maxDepth: limits.depth + Limits.wrapping, bad: bad)
            if !begun {
                try scratch.begin(o, kind: kind, bad: bad)
                begun = true
                try trackNewScenes()
                continue
            }
            // The effect an outcome ends, and how a scenario names it.
            var ending: (scene: Int64, effect: Int64, outcome: Outcome)?
            if kind == "outcome", let id = o["effect"]?.int64Value,
               let record = scratch.lock.withLock({ scratch.state.effects[id] }) {
                ending = (record.scene, id, o["result"].map(Outcome.success) ?? .failure(o["error"] ?? .null))
            }
            let live = scratch.lock.withLock { scratch.state.effects.records }
            let response: JSON?
            do throws(YaiaError) {
                response = try scratch.replay(kind: kind, o)
            } catch {
                throw bad("it does not replay: \(error.code): \(error.message)")
            }
            switch kind {
            case Op.open.name:
                if let id = response?["scene"]?.int64Value, let name = o["scene"]?.stringValue {
                    current[id] = nil
                    _ = try track(id, args: o["args"] ?? [:], state: o["state"], name: name)
                }
            case Op.restore.name:
                current = [:]
            default: break
            }
            while let event = scratch.receive(timeout: 0) {
                guard let scene = event["scene"]?.int64Value, let t = try track(scene) else { continue }
                switch event["event"]?.stringValue {
                case "action":
                    guard let a = event["action"], let action = try? Action(json: a) else { continue }
                    if let e = ending, e.scene == scene, let ref = reference(e.effect, in: tracks[t], live: live) {
                        ending = nil
                        tracks[t].inputs.append(.resolve(ref, e.outcome))
                    } else {
                        tracks[t].inputs.append(.send(action))
                    }
                case "effect":
                    if let id = event["effect"]?["id"]?.int64Value { tracks[t].effects.append(id) }
                default:
                    break
                }
            }
            // An outcome the effect asked no action for still ends it.
            if let e = ending, let t = current[e.scene], let ref = reference(e.effect, in: tracks[t], live: live) {
                tracks[t].inputs.append(.resolve(ref, e.outcome))
            }
            try trackNewScenes()
        }
        guard begun else { throw YaiaError(.badJournal, "\(path) is empty") }

        var scenarios: [JSON] = []
        var skipped: [JSON] = []
        let recordingCatalog = scratch.catalog
        var names: [String: Int] = [:]
        for t in tracks {
            // A restore may bring a scene back under its id: its second life is named apart.
            var name = "\(t.name) (scene \(t.id))"
            names[name, default: 0] += 1
            if let n = names[name], n > 1 { name += " #\(n)" }
            var scenario = Scenario(name: name, subject: .scene(t.name), args: t.args, state: t.state,
                                    steps: t.inputs.map { Scenario.Step(input: $0) })
            let recorder = Runtime(catalog: recordingCatalog, workers: 1, limits: limits, clock: .manual(ManualClock()))
            defer { recorder.shutDown() }
            var run = ScenarioRun(scenario: scenario, scratch: recorder, caller: self)
            if let problem = run.start() {
                skipped.append(["scene": .int(t.id), "name": .string(t.name), "reason": .string(problem.message)])
                continue
            }
            var steps: [Scenario.Step] = []
            var failed: String?
            for step in scenario.steps {
                switch run.record(step) {
                case .success(let s): steps.append(s)
                case .failure(let problem): failed = problem.message
                }
                if failed != nil { break }
            }
            if let failed {
                skipped.append(["scene": .int(t.id), "name": .string(t.name), "reason": .string(failed)])
                continue
            }
            // The journal ended with effects in flight: every step stays exhaustive, the end does not.
            if !run.inFlight().isEmpty {
                scenario.exhaustive = false
                for i in steps.indices { steps[i].exhaustive = true }
            }
            scenario.steps = steps
            scenarios.append(scenario.json)
        }
        var answer: JSONObject = ["ok": true, "scenarios": .array(scenarios)]
        if !skipped.isEmpty { answer["skipped"] = .array(skipped) }
        return .object(answer)
    }
}
