import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
import YaiaRuntime

@Suite("The scenario request")
struct ScenarioRunnerTests {
    let login = #"""
    {"yaia": 1, "name": "login", "scene": "example/login", "steps": [
      {"send": "emailChanged", "payload": "a@b.c", "expect": {"state": {"email": "a@b.c"}}},
      {"send": "passwordChanged", "payload": "pw", "expect": {"state": {"password": "pw"}, "view": {"canSubmit": true}}},
      {"send": "submit", "expect": {"state": {"isSubmitting": true},
                                    "effects": [{"service": "auth", "op": "login", "args": {"email": "a@b.c", "password": "pw"}}]}},
      {"resolve": "auth.login", "result": {"user": {"id": 1}},
       "expect": {"state": {"isSubmitting": false, "user": {"id": 1}}, "routes": [{"push": "example/home", "args": {"user": {"id": 1}}}]}}
    ]}
    """#

    func run(_ scenario: String, on rt: Runtime = makeRuntime()) -> JSON {
        rt.run(#"{"op":"scenario","scenario":"# + scenario + "}")
    }

    @Test("a scenario that holds passes, and the calling runtime is left as it was")
    func passes() {
        let rt = makeRuntime()
        #expect(run(login, on: rt) == ["ok": true, "name": "login", "passed": true, "steps": 4])
        #expect(rt.run(#"{"op":"scenes"}"#)["scenes"] == [])
    }

    @Test("a wrong expectation fails with the step, its label, the pointer and the text")
    func fails() throws {
        let wrong = login.replacingOccurrences(of: #"{"isSubmitting": false, "user": {"id": 1}}"#, with: #"{"user": {"id": 1}}"#)
        let answer = run(wrong)
        #expect(answer["passed"] == false)
        let failure = try #require(answer["failure"])
        #expect(failure["step"] == 4)
        #expect(failure["label"] == #"resolve auth.login with result {"user":{"id":1}}"#)
        #expect(failure["differences"] == [["pointer": "/state/isSubmitting", "expected": true, "actual": false]])
        #expect(failure["text"] == #"""
            step 4 (resolve auth.login with result {"user":{"id":1}}): the state is not the expected one:
              /state/isSubmitting: expected true, got false
            """#)
    }

    @Test("an effect left in flight fails at the end, unless the scenario is relaxed")
    func inFlight() throws {
        let cut = #"{"yaia": 1, "scene": "example/feed", "steps": [{"send": "load", "expect": {"state": {"isLoading": true}, "effects": [{"service": "feed", "op": "fetch"}]}}]}"#
        let failure = try #require(run(cut)["failure"])
        #expect(failure["step"] == 2 && failure["label"] == "end")
        #expect(failure["message"] == "1 effect is still in flight (#1 feed.fetch): resolve it, or have the scene cancel it")
        let relaxed = cut.replacingOccurrences(of: #""scene": "example/feed","#, with: #""scene": "example/feed", "exhaustive": false,"#)
        #expect(run(relaxed)["passed"] == true)
    }

    @Test("time-outs fire when the clock is advanced past them; a cancelled effect owes nothing")
    func clock() {
        let search = #"""
        {"yaia": 1, "scene": "example/search", "env": {"now": 100}, "steps": [
          {"send": "queryChanged", "payload": "a", "expect": {"state": {"query": "a", "isSearching": true}, "effects": [{"service": "search", "op": "query"}]}},
          {"send": "queryChanged", "payload": "ab", "expect": {"state": {"query": "ab"}, "effects": [{"service": "search", "op": "query"}]}},
          {"resolve": 1, "result": {}, "expectError": {"code": "x"}},
          {"advance": 4.9},
          {"advance": 0.1, "expect": {"state": {"isSearching": false, "error": "effect 2 (search.query) timed out"}}},
          {"expectNoEffects": true}
        ]}
        """#
        let answer = run(search)
        #expect(answer["failure"]?["step"] == 3)
        #expect(answer["failure"]?["message"]?.stringValue?.hasPrefix("the scene cancelled #1 search.query") == true)
        #expect(run(search.replacingOccurrences(of: #"{"resolve": 1, "result": {}, "expectError": {"code": "x"}},"#, with: ""))["passed"] == true)
    }

    @Test("a flow's sends go to its top scene, and its stack is checked")
    func flow() {
        let flow = #"""
        {"yaia": 1, "flow": {"scene": "example/home", "args": {"user": {"id": 1}}}, "steps": [
          {"send": "showAbout", "expect": {"routes": [{"present": "example/about"}], "stack": ["example/home", "example/about"], "view": {}}},
          {"send": "close", "expect": {"routes": [{"dismiss": true}], "stack": ["example/home"], "view": {"items": []}}}
        ]}
        """#
        #expect(run(flow)["passed"] == true)
        let wrong = run(flow.replacingOccurrences(of: #""stack": ["example/home"]"#, with: #""stack": ["example/about"]"#))
        #expect(wrong["failure"]?["differences"] == [["pointer": "/stack/0", "expected": "example/about", "actual": "example/home"]])
    }

    @Test("malformed scenarios are bad_scenario under /scenario; the runner refuses what it is not granted")
    func refusals() {
        let bad = run(#"{"yaia": 1, "scene": "example/login", "steps": [{"sned": 1}]}"#)
        #expect(bad["error"]?["code"] == "bad_scenario")
        #expect(bad["error"]?["at"] == "/scenario/steps/0/sned")
        #expect(bad["error"]?["problems"]?.arrayValue?.count == 2)
        let rt = makeRuntime()
        #expect(rt.run(#"{"op":"scenario","path":"/etc/passwd"}"#)["error"]?["at"] == "/path")
        #expect(rt.run(#"{"op":"scenario_from_journal","path":"/etc/passwd"}"#)["error"]?["code"] == "not_permitted")
        let perform = run(#"{"yaia": 1, "scene": "example/feed", "steps": [{"send": "load", "exhaustive": false}, {"perform": "feed.fetch"}]}"#)
        #expect(perform["error"]?["code"] == "not_permitted")
        #expect(rt.run(#"{"op":"scenario"}"#)["error"]?["code"] == "bad_request")
    }

    @Test("perform runs the effect on the calling runtime's services")
    func performs() throws {
        let rt = try Runtime(catalog: Catalog(SceneCatalog(Examples.sceneTypes)), config: try json(#"""
            {"bind": [{"service": "m", "library": "libm.so.6", "ops": {"ceil": "double(double)"}}], "allow": {"ops": ["perform"]}}
            """#))
        defer { rt.shutDown() }
        let answer = run(#"""
        {"yaia": 1, "scene": "example/jobs", "steps": [
          {"send": "run", "payload": {"service": "m", "op": "ceil", "args": [1.5]}, "expect": {"effects": [{"service": "m", "op": "ceil"}]}},
          {"perform": "m.ceil", "expect": {"state": {"log": [{"ok": true, "result": 2}]}}}
        ]}
        """#, on: rt)
        #expect(answer["passed"] == true, "\(answer)")
    }
}
