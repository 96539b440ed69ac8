import Foundation
import Testing
import YaiaCore
import YaiaExamples
import YaiaRuntime

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
        #expect(envelopeError(runtime.execute(["op": "simulate", "scene": "sim/cart", "env": ["now": 1]]))?["at"] == "/env/now")
        // Files a request names must lie in granted directories.
        let refused = runtime.execute(["op": "simulate", "scene": "sim/cart", "scenes": ["cart.json"], "base": .string(simulationFolder)])
        #expect(envelopeError(refused)?["code"] == "not_permitted")
    }

    @Test func theRequestsScenesAreLoadedFromBase() throws {
        let runtime = Runtime(catalog: SceneCatalog(Examples.sceneTypes), grants: Grants(directories: [simulationFolder]))
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
