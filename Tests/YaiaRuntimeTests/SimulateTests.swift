import CYaiaScene
import Foundation
import Testing
import YaiaCore
import YaiaExamples
@testable import YaiaKit
import YaiaKit
@testable import YaiaRuntime

// The simulate op: random runs of a document scene, invariants checked
// after every step, a failure shrunk to a short scenario.

/// Tests/documents/simulate, where the test scenes are.
let simulationFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("documents/simulate").path

/// A runtime holding the test scenes and the examples.
func simulationRuntime() throws -> Runtime {
    try Runtime(catalog: SceneCatalog(Examples.sceneTypes), config: ["scenes": [.string(simulationFolder + "/")]])
}

func simulate(_ runtime: Runtime, _ scene: String, runs: Int = 100, seed: Int = 7, steps: Int = 20) -> JSON {
    runtime.execute(["op": "simulate", "scene": .string(scene), "runs": JSON(runs), "seed": JSON(seed), "steps": JSON(steps)])
}

@Suite struct SimulateTests {
    @Test func findsThePlantedCartBugAndShrinksItToThreeSteps() throws {
        let runtime = try simulationRuntime()
        defer { runtime.shutDown() }
        let answer = simulate(runtime, "sim/cart")
        #expect(answer["ok"] == true)
        #expect(answer["passed"] == false)
        #expect(answer["invariant"] == "totalNonNegative")
        let steps = try #require(answer["scenario"]?["steps"]?.arrayValue)
        #expect(steps.count <= 5)
        // The shortest way there: add the cheapest item, clear, remove.
        #expect(steps == [["send": "add", "payload": ["price": 1]], ["send": "clear"], ["send": "remove"]])
        #expect(answer["scenario"]?["scene"] == "sim/cart")
        #expect(answer["scenario"]?["exhaustive"] == false)
        #expect(answer["scenario"]?["yaia"] == 1)
    }

    @Test func findsAViolationThatNeedsEffectOutcomes() throws {
        let runtime = try simulationRuntime()
        defer { runtime.shutDown() }
        let answer = simulate(runtime, "sim/fetcher")
        #expect(answer["passed"] == false)
        #expect(answer["invariant"] == "atMostTwelve")
        let steps = try #require(answer["scenario"]?["steps"]?.arrayValue)
        #expect(steps.count <= 5)
        // Two loads, two results summing past 12.
        #expect(steps.filter { $0["send"] == "load" }.count == 2)
        let results = steps.compactMap { $0["result"]?.int64Value }
        #expect(results.count == 2 && results.reduce(0, +) == 13)
        #expect(steps.allSatisfy { $0["resolve"] == nil || $0["resolve"] == "amounts.next" })
    }

    @Test func aSceneWithoutViolationsPassesEveryRun() throws {
        let runtime = try simulationRuntime()
        defer { runtime.shutDown() }
        let answer = simulate(runtime, "sim/safe", runs: 200, steps: 30)
        #expect(answer == ["ok": true, "passed": true, "runs": 200, "invariants": ["withinCap"]])
    }

    @Test func theSameSeedGivesTheSameAnswer() throws {
        let runtime = try simulationRuntime()
        defer { runtime.shutDown() }
        for scene in ["sim/cart", "sim/fetcher"] {
            let first = simulate(runtime, scene, seed: 11)
            #expect(first["passed"] == false)
            #expect(simulate(runtime, scene, seed: 11) == first)
        }
    }

    @Test func anotherSeedStillFindsIt() throws {
        let runtime = try simulationRuntime()
        defer { runtime.shutDown() }
        for seed in [1, 2, 3, 99] {
            let answer = simulate(runtime, "sim/cart", seed: seed)
            #expect(answer["invariant"] == "totalNonNegative", "seed \(seed)")
            #expect((answer["scenario"]?["steps"]?.arrayValue?.count ?? 99) <= 5, "seed \(seed)")
        }
    }

    @Test func swiftScenesAreNotSimulatable() throws {
        let runtime = try simulationRuntime()
        defer { runtime.shutDown() }
        let answer = simulate(runtime, "example/login")
        #expect(envelopeError(answer)?["code"] == "not_simulatable")
        #expect(envelopeError(answer)?["at"] == "/scene")
    }

    @Test func badRequestsAreRefused() throws {
        let runtime = try simulationRuntime()
        defer { runtime.shutDown() }
        #expect(envelopeError(runtime.execute(["op": "simulate", "scene": "sim/nope"]))?["code"] == "unknown_scene")
        #expect(envelopeError(runtime.execute(["op": "simulate", "scene": "sim/cart", "runs": 0]))?["at"] == "/runs")
        #expect(envelopeError(runtime.execute(["op": "simulate", "scene": "sim/cart", "seed": "x"]))?["at"] == "/seed")
        #expect(envelopeError(runtime.execute(["op": "simulate", "scene": "sim/cart", "runs": 10_000, "steps": 1_000]))?["at"] == "/runs")
        #expect(envelopeError(runtime.execute(["op": "simulate", "scene": "sim/cart", "env": ["now": 1]]))?["at"] == "/env/now")
        // A scene the calling runtime lacks is loaded as a scenario's: only with the grants.
        let bare = Runtime(catalog: SceneCatalog(Examples.sceneTypes))
        defer { bare.shutDown() }
        let refused = bare.execute(["op": "simulate", "scene": "sim/cart", "scenes": ["cart.json"], "base": .string(simulationFolder)])
        #expect(envelopeError(refused)?["code"] == "not_permitted")
    }

    @Test func theRequestsScenesAreLoadedFromBase() throws {
        let runtime = Runtime(catalog: SceneCatalog(Examples.sceneTypes), grants: Grants(ops: ["register"], directories: [simulationFolder]))
        defer { runtime.shutDown() }
        let answer = runtime.execute(["op": "simulate", "scene": "sim/cart", "scenes": ["cart.json"], "base": .string(simulationFolder),
                                      "runs": 50, "seed": 3])
        #expect(answer["passed"] == false)
        #expect(answer["scenario"]?["scenes"] == ["cart.json"])
        // The caller's catalog is untouched.
        #expect(runtime.execute(["op": "schema", "scene": "sim/cart"])["ok"] == false)
    }

    @Test func failingInvariantsOfAnOpenScene() throws {
        let runtime = try simulationRuntime()
        defer { runtime.shutDown() }
        let id = try #require(try runtime.open("sim/cart")["scene"]?.int64Value)
        #expect(try runtime.failingInvariants(scene: id, args: [:]).isEmpty)
        _ = try runtime.send(scene: id, action: Action("add", payload: ["price": 5]))
        _ = try runtime.send(scene: id, action: Action("clear"))
        _ = try runtime.send(scene: id, action: Action("remove"))
        let failures = try runtime.failingInvariants(scene: id, args: [:])
        #expect(failures.map(\.name) == ["totalNonNegative"])
        #expect(failures.first?.message == "the invariant \"totalNonNegative\" of sim/cart does not hold")
        // A Swift scene that declares none breaks none.
        let login = try #require(try runtime.open("example/login")["scene"]?.int64Value)
        #expect(try runtime.failingInvariants(scene: login, args: nil).isEmpty)
    }
}

/// A Swift scene with invariants, for the pack boundary.
struct BoundedCounter: SceneState {
    enum Act: SceneAction {
        case add(Int64)
        init(_ action: Action) throws(YaiaError) {
            guard action.type == "add" else { throw action.unknown }
            guard let n = action.payload?.int64Value else { throw YaiaError(.badPayload, "add takes a whole number", at: "/payload") }
            self = .add(n)
        }
    }

    static let name = "test/bounded"
    static var invariants: [Invariant<BoundedCounter>] {
        [Invariant("nonNegative") { $0.n >= 0 }, Invariant("belowTen") { $0.n < 10 }]
    }

    var n: Int64 = 0
    init(args: JSON) {}
    init(json: JSON) throws(YaiaError) {
        guard let n = json["n"]?.int64Value else { throw YaiaError(.badState, "a bounded counter's state is {\"n\": N}") }
        self.n = n
    }
    mutating func reduce(_ action: Act) -> [Command] {
        if case .add(let k) = action { n &+= k }
        return []
    }

    var json: JSON { ["n": .int(n)] }
    var viewModel: JSON { json }
}

/// Where `make test-packs` puts the C test packs.
let testPackFolder = ProcessInfo.processInfo.environment["YAIA_TEST_PACK_DIR"]
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/yaia/test-packs").path

@Suite struct PackInvariantTests {
    func runtime(_ types: [SceneType]) throws -> Runtime {
        let descriptor = ScenePack.makeDescriptor(name: "bounded", version: nil, types: types, documents: [],
                                                  write: try #require(hostTable.pointee.write))
        var catalog = Catalog()
        try catalog.add(try checkPack(UnsafePointer(descriptor), path: "(in process)", shownAs: "bounded"))
        return Runtime(catalog: catalog, workers: 1)
    }

    @Test func aSwiftPackScenesInvariantsCrossThePackBoundary() throws {
        let rt = try runtime([SceneType(BoundedCounter.self), SceneType(LoginState.self)])
        defer { rt.shutDown() }
        #expect(rt.catalog["test/bounded"]?.hasInvariants == true)
        #expect(rt.catalog["example/login"]?.hasInvariants == false)
        let id = try #require(try rt.open("test/bounded")["scene"]?.int64Value)
        #expect(try rt.failingInvariants(scene: id, args: nil).isEmpty)
        _ = try rt.send(scene: id, action: Action("add", payload: -20))
        let failures = try rt.failingInvariants(scene: id, args: nil)
        #expect(failures.map(\.name) == ["nonNegative"])
        #expect(failures.first?.message == "the invariant \"nonNegative\" of test/bounded does not hold")
        _ = try rt.send(scene: id, action: Action("add", payload: 35))
        #expect(try rt.failingInvariants(scene: id, args: nil).map(\.name) == ["belowTen"])
        let login = try #require(try rt.open("example/login")["scene"]?.int64Value)
        #expect(try rt.failingInvariants(scene: login, args: nil).isEmpty)
        // Declared, but not simulatable: the actions' payloads are not.
        #expect(envelopeError(rt.execute(["op": "simulate", "scene": "test/bounded"]))?["code"] == "not_simulatable")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: testPackFolder + "/counter.so"), "make test-packs builds the C test packs"))
    func aCPackScenesInvariantsAndAnOlderSceneTypeWithout() throws {
        var catalog = Catalog()
        try catalog.add(try loadScenePack(path: testPackFolder + "/counter.so"))
        let rt = Runtime(catalog: catalog, workers: 1)
        defer { rt.shutDown() }
        #expect(rt.catalog["test/counter"]?.hasInvariants == true)
        let id = try #require(try rt.open("test/counter")["scene"]?.int64Value)
        #expect(try rt.failingInvariants(scene: id, args: nil).isEmpty)
        _ = try rt.send(scene: id, action: Action("add", payload: 1500))
        #expect(try rt.failingInvariants(scene: id, args: nil).map(\.name) == ["belowThousand"])

        // Built before the invariants field: it loads, and declares none.
        var older = Catalog()
        try older.add(try loadScenePack(path: testPackFolder + "/old_type.so"))
        #expect(older["test/counter"]?.hasInvariants == false)
        let old = Runtime(catalog: older, workers: 1)
        defer { old.shutDown() }
        let oldID = try #require(try old.open("test/counter")["scene"]?.int64Value)
        _ = try old.send(scene: oldID, action: Action("add", payload: 1500))
        #expect(try old.failingInvariants(scene: oldID, args: nil).isEmpty)
    }
}

@Suite struct SimulatedScenarioTests {
    @Test func theShrunkScenarioFailsWhenTheScenarioOpRunsIt() throws {
        let runtime = try simulationRuntime()
        defer { runtime.shutDown() }
        for scene in ["sim/cart", "sim/fetcher"] {
            let found = simulate(runtime, scene, seed: 5)
            let scenario = try #require(found["scenario"])
            let steps = try #require(scenario["steps"]?.arrayValue)
            let answer = runtime.execute(["op": "scenario", "scenario": scenario])
            #expect(answer["ok"] == true, "\(answer)")
            #expect(answer["passed"] == false)
            // The last step fails, for the invariant the simulator found broken.
            #expect(answer["failure"]?["step"] == .int(Int64(steps.count)))
            #expect(answer["failure"]?["message"] == found["message"])
            // Without its last step, it passes.
            guard case .object(var shorter) = scenario else { continue }
            shorter["steps"] = .array(Array(steps.dropLast()))
            #expect(runtime.execute(["op": "scenario", "scenario": .object(shorter)])["passed"] == true)
        }
    }

    @Test func aScenarioFailsWhenTheSceneOpensBreakingAnInvariant() throws {
        let runtime = try simulationRuntime()
        defer { runtime.shutDown() }
        let answer = runtime.execute(["op": "scenario", "scenario": ["yaia": 1, "scene": "sim/safe", "args": ["cap": -1], "steps": []]])
        #expect(answer["passed"] == false)
        #expect(answer["failure"]?["step"] == 0)
        #expect(answer["failure"]?["message"] == "the invariant \"withinCap\" of sim/safe does not hold")
    }
}

@Suite struct SwiftSceneSimulationTests {
    @Test func aSwiftPackSceneIsSimulatedWithTheActionsTheRequestDeclares() throws {
        let rt = try PackInvariantTests().runtime([SceneType(BoundedCounter.self)])
        defer { rt.shutDown() }
        let request: JSON = ["op": "simulate", "scene": "test/bounded", "seed": 4,
                             "actions": ["add": ["type": "integer", "minimum": -2, "maximum": 6]]]
        let answer = rt.execute(request)
        #expect(answer["passed"] == false)
        let invariant = try #require(answer["invariant"]?.stringValue)
        #expect(["nonNegative", "belowTen"].contains(invariant))
        let steps = try #require(answer["scenario"]?["steps"]?.arrayValue)
        #expect(steps.count <= 5)
        if invariant == "nonNegative" { #expect(steps == [["send": "add", "payload": -1]]) }
        // A pack scene cannot list its invariants, only the broken ones.
        #expect(answer["invariants"] == nil)
        #expect(rt.execute(request) == answer)
        let run = rt.execute(["op": "scenario", "scenario": try #require(answer["scenario"])])
        #expect(run["passed"] == false)
        #expect(run["failure"]?["message"] == answer["message"])
    }

    @Test func declaredActionsAreChecked() throws {
        let rt = try PackInvariantTests().runtime([SceneType(BoundedCounter.self)])
        defer { rt.shutDown() }
        #expect(envelopeError(rt.execute(["op": "simulate", "scene": "test/bounded", "actions": [:]]))?["at"] == "/actions")
        #expect(envelopeError(rt.execute(["op": "simulate", "scene": "test/bounded", "actions": ["add": "integer"]]))?["at"] == "/actions/add")
    }
}

@Suite struct SimulatedClockTests {
    @Test func aTimeOutOnlyTheClockFiresIsFound() throws {
        let runtime = try simulationRuntime()
        defer { runtime.shutDown() }
        let answer = simulate(runtime, "sim/timer", runs: 200)
        #expect(answer["invariant"] == "neverGivesUp")
        let steps = try #require(answer["scenario"]?["steps"]?.arrayValue)
        #expect(steps == [["send": "start"], ["advance": 5.0]])
        #expect(runtime.execute(["op": "scenario", "scenario": try #require(answer["scenario"])])["passed"] == false)
    }
}
