import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
import YaiaRuntime

/// A shelf of jars, each a child scene; a jar may be overfilled by two
/// pours, which breaks its invariant.
enum ShelfDocuments {
    static let jar: JSON = [
        "yaia": 1, "scene": "sim/jar", "args": ["id": ["type": "integer"]], "state": ["count": 0],
        "actions": [
            "pour": ["payload": ["schema": ["type": "integer", "minimum": 0, "maximum": 2]],
                     "set": ["count": ["+": [["var": "state.count"], ["var": "payload"]]]]],
            "empty": ["set": ["count": 0]],
        ],
        "invariants": ["notOverfull": ["<=": [["var": "state.count"], 3]]],
    ]

    static let shelf: JSON = [
        "yaia": 1, "scene": "sim/shelf", "state": ["items": ["literal": [["id": 1], ["id": 2]]], "dusted": false],
        "actions": ["dust": ["set": ["dusted": true]]],
        "children": ["jars": ["scene": "sim/jar", "kind": "keyed", "from": ["var": "state.items"], "args": ["id": ["var": "item.id"]]]],
        "invariants": ["twoJars": ["==": [["length": ["var": "state.items"]], 2]]],
    ]
}

/// Scenario files and simulations over a scene and its children (docs/scenarios.md, docs/simulation.md).
@Suite struct ChildScenarioTests {
    func runtime() throws -> Runtime {
        let rt = Runtime(catalog: SceneCatalog(Examples.sceneTypes + Examples.childSceneTypes))
        for document in [ShelfDocuments.jar, ShelfDocuments.shelf] { _ = try rt.register(document: document) }
        return rt
    }

    func scenario(_ rt: Runtime, _ steps: String) -> JSON {
        rt.run(#"{"op":"scenario","scenario":{"yaia":1,"name":"rows","scene":"example/rows","steps":["# + steps + "]}}")
    }

    @Test func aScenarioSendsToAChildByItsPathAndStatesItsStateAndView() throws {
        let rt = try runtime()
        defer { rt.shutDown() }
        let answer = scenario(rt, #"""
            {"send": "rename", "path": ["rows", 2], "payload": "Duck eggs",
             "expect": {"state": {"draft": "Duck eggs"}, "view": {"canSave": true}}},
            {"send": "save", "path": ["rows", 2],
             "expect": {"state": {"saving": true}, "effects": [{"service": "store", "op": "put", "args": {"key": "row/2", "value": "Duck eggs"}}]}},
            {"resolve": "store.put", "result": null, "expect": {"state": {"title": "Duck eggs", "draft": null, "saving": false}}},
            {"expect": {"state": {"/items/1/title": "Duck eggs"}, "view": {"/rows/1/title": "Duck eggs"}}},
            {"path": ["rows", 3], "expect": {"state": {"title": "Bread", "pinned": false}, "view": {"canSave": false}}},
            {"send": "togglePin", "path": ["rows", 9], "expectError": {"code": "no_such_child"}},
            {"send": "remove", "payload": 2, "exhaustive": false, "expect": {"view": {"/rows/1/title": "Bread"}}}
            """#)
        #expect(answer == ["ok": true, "name": "rows", "passed": true, "steps": 7])
    }

    @Test func theExampleOfTheDocsPasses() throws {
        let rt = try runtime()
        defer { rt.shutDown() }
        // docs/scenarios.md, "Child scenes": an output reaches the parent, stated by a step without input.
        let answer = scenario(rt, #"""
            {"send": "togglePin", "path": ["rows", 2], "expect": {"state": {"pinned": true}, "view": {"pinned": true}}},
            {"send": "open", "path": ["rows", 2]},
            {"expect": {"state": {"opened": 2}}},
            {"path": ["rows", 3], "expect": {"state": {"pinned": false}}}
            """#)
        #expect(answer["passed"] == true)
    }

    @Test func aChildsViewNotAsExpectedFailsWithItsPathInTheLabel() throws {
        let rt = try runtime()
        defer { rt.shutDown() }
        let answer = scenario(rt, #"{"send": "togglePin", "path": ["rows", 1], "expect": {"state": {"pinned": true}, "view": {"pinned": false}}}"#)
        #expect(answer["passed"] == false)
        #expect(answer["failure"]?["label"] == #"send togglePin at ["rows",1]"#)
        #expect(answer["failure"]?["differences"] == [["pointer": "/view/pinned", "expected": false, "actual": true]])
        // A child that is not there fails the step that states it.
        let gone = scenario(rt, #"{"path": ["rows", 7], "expect": {"state": {"pinned": true}}}"#)
        #expect(gone["failure"]?["message"]?.stringValue?.hasPrefix(#"no child at ["rows",7]"#) == true)
    }

    @Test func aMalformedPathIsReportedWithItsPointer() throws {
        let rt = try runtime()
        defer { rt.shutDown() }
        let answer = scenario(rt, #"""
            {"send": "togglePin", "path": [7]},
            {"resolve": "store.put", "result": null, "path": ["rows", 1]},
            {"send": "togglePin", "path": ["rows", 1.5]}
            """#)
        #expect(answer["error"]?["code"] == "bad_scenario")
        #expect(answer["error"]?["problems"]?.arrayValue?.map { $0["at"] ?? .null } == ["/steps/0/path", "/steps/1/path", "/steps/2/path/1"])
    }

    @Test func aSimulationSendsToChildrenAndChecksTheirInvariants() throws {
        let rt = try runtime()
        defer { rt.shutDown() }
        let answer = rt.execute(["op": "simulate", "scene": "sim/shelf", "runs": 50, "seed": 7, "steps": 20])
        #expect(answer["passed"] == false)
        #expect(answer["invariant"] == "notOverfull")
        let steps = try #require(answer["scenario"]?["steps"]?.arrayValue)
        // Shrunk to pours into one jar that add up to 4, one too many: a
        // step less, or a smaller pour, would keep the jar within 3.
        #expect(steps.count >= 2 && steps.count <= 4)
        #expect(steps.allSatisfy { $0["send"] == "pour" && $0["path"] != nil && $0["path"] == steps[0]["path"] })
        #expect(steps.compactMap { $0["payload"]?.int64Value }.reduce(0, +) == 4)
        #expect(steps[0]["path"]?.arrayValue?.first == "jars")
        // The scenario it gives fails at its last step, for the child's invariant.
        let scenario = try #require(answer["scenario"])
        let run = rt.execute(["op": "scenario", "scenario": scenario])
        #expect(run["passed"] == false)
        #expect(run["failure"]?["step"] == .int(Int64(steps.count)))
        #expect(run["failure"]?["message"]?.stringValue?.contains("notOverfull") == true)
    }
}
