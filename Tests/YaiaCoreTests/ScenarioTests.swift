import Testing
import YaiaCore
import YaiaKit

@Suite("Scenario files, read and written")
struct ScenarioReadingTests {
    func problems(_ text: String) throws -> [String] {
        do throws(YaiaError) {
            _ = try Scenario(try JSONParser.parse(text))
            return []
        } catch {
            #expect(error.code == .badScenario)
            return (error.problems?.arrayValue ?? []).map { "\($0["at"]?.stringValue ?? "?") \($0["code"]?.stringValue ?? "?")" }
        }
    }

    @Test("a scenario reads into steps with their inputs and expectations")
    func reads() throws {
        let s = try Scenario(try JSONParser.parse(#"""
        {"yaia": 1, "name": "n", "scene": "example/login", "args": {"email": "a"}, "env": {"now": 5, "k": 1},
         "steps": [{"send": "emailChanged", "payload": "a@b.c", "expect": {"state": {"email": "a@b.c"}, "view": {"canSubmit": false}}},
                   {"resolve": "auth.login", "error": {"message": "no"}, "exhaustive": false},
                   {"resolve": 2, "result": 1, "label": "the second"},
                   {"advance": 1.5}, {"perform": "store.get"}, {"expectNoEffects": true},
                   {"send": "x", "expectError": {"code": "bad_payload", "at": "/payload"}}]}
        """#))
        #expect(s.subject == .scene("example/login"))
        #expect(s.args == ["email": "a"])
        #expect(s.now == 5 && s.env == ["k": 1])
        #expect(s.steps.map(\.input) == [
            .send(Action("emailChanged", payload: "a@b.c")), .resolve(.named(service: "auth", op: "login"), .failure(["message": "no"])),
            .resolve(.number(2), .success(1)), .advance(1.5), .perform(.named(service: "store", op: "get")), .none, .send(Action("x")),
        ])
        #expect(s.steps.map(\.label) == [#"send emailChanged "a@b.c""#, #"resolve auth.login with error {"message":"no"}"#, "the second",
                                         "advance 1.5", "perform store.get", "expect", "send x"])
        #expect(s.steps[0].expect?.state == ["email": "a@b.c"])
        #expect(s.steps[1].exhaustive == false)
        #expect(s.steps[6].expectError == Scenario.Refusal(code: "bad_payload", at: "/payload"))
    }

    @Test("writing a scenario and reading it back gives the same scenario")
    func roundTrip() throws {
        let text = #"""
        {"yaia": 1, "name": "n", "flow": {"scene": "a/b", "args": {"x": 1}}, "exhaustive": false, "env": {"now": 2},
         "steps": [{"send": "go", "payload": [1], "error": true, "meta": {"m": 1}, "expect": {"stack": ["a/b"], "routes": [{"pop": true}]}},
                   {"resolve": 1, "error": 2, "expectError": {"code": "c", "message": "m"}},
                   {"expect": {"view": {"a": 1}, "viewExact": true, "effects": [{"service": "s", "op": "o"}]}, "label": "look"}]}
        """#
        let s = try Scenario(try JSONParser.parse(text))
        let again = try Scenario(s.json)
        #expect(again.json == s.json)
        #expect(s.json == (try JSONParser.parse(text)))
    }

    @Test("every problem is listed, each at its pointer")
    func problemsListed() throws {
        #expect(try problems(#"[]"#) == [" wrong_type"])
        #expect(try problems(#"{"yaia": 2, "scene": "a", "steps": []}"#) == ["/yaia bad_version"])
        #expect(try problems(#"{"scene": "a", "flow": {"scene": "b"}, "steps": 1}"#) == [" missing_member", "/flow bad_value", "/steps wrong_type"])
        #expect(try problems(#"{"yaia": 1, "scene": "a", "state": {}, "args": {}, "steps": [{"sned": 1}, {"send": "a", "advance": 1}]}"#)
                == ["/state bad_value", "/steps/0/sned unknown_member", "/steps/0 missing_member", "/steps/1/advance bad_value"])
        #expect(try problems(#"{"yaia": 1, "scene": "a", "steps": [{"resolve": "x"}, {"resolve": 0, "result": 1}, {"advance": 1e10}]}"#)
                == ["/steps/0/resolve bad_value", "/steps/0 bad_value", "/steps/1/resolve wrong_type", "/steps/2/advance bad_value"])
        #expect(try problems(#"{"yaia": 1, "scene": "a", "steps": [{"expect": {"view": 1, "effects": [{"op": "x"}], "state": {"/a~2": 1}}}]}"#)
                == ["/steps/0/expect/state/~1a~02 bad_value", "/steps/0/expect/effects/0 missing_member", "/steps/0/expect/view wrong_type"])
        #expect(try problems(#"{"yaia": 1, "scene": "a", "steps": [{"advance": 1, "expectError": {"code": "x"}}, {"send": "a", "expect": {}, "expectError": {}}]}"#)
                == ["/steps/0/expectError bad_value", "/steps/1/expectError missing_member", "/steps/1/expect bad_value"])
    }

    @Test("a hostile file's problems and steps are bounded")
    func bounded() throws {
        let many = "[" + Array(repeating: #"{"x": 1}"#, count: 5_000).joined(separator: ",") + "]"
        #expect(try problems(#"{"yaia": 1, "scene": "a", "steps": "# + many + "}").count == 100)
        let long = "[" + Array(repeating: #"{"send": "a"}"#, count: Scenario.maxSteps + 1).joined(separator: ",") + "]"
        #expect(try problems(#"{"yaia": 1, "scene": "a", "steps": "# + long + "}") == ["/steps bad_value"])
    }
}

@Suite("Scenario differences")
struct ScenarioDiffTests {
    @Test("differences are listed by pointer, with what is missing on either side")
    func differences() {
        let d = ScenarioDiff.differences(expected: ["a": 1, "b": [1, 2], "c": ["x": true]], actual: ["a": 2, "b": [1], "d": .null], at: "/state")
        #expect(d == [.init(pointer: "/state/a", expected: 1, actual: 2), .init(pointer: "/state/b/1", expected: 2, actual: nil, inArray: true),
                      .init(pointer: "/state/c", expected: ["x": true], actual: nil), .init(pointer: "/state/d", expected: nil, actual: .null)])
        #expect(d[0].line == "/state/a: expected 1, got 2")
        #expect(d[1].line == "/state/b/1: expected 2, got no element")
        #expect(d[1].json == ["pointer": "/state/b/1", "expected": 2])
    }

    @Test("a partial match checks only the members stated, by name or pointer")
    func partial() {
        let actual: JSON = ["a": 1, "b": ["c": [10, 20]], "e": "x"]
        #expect(ScenarioDiff.partial(expected: ["a": 1, "/b/c/1": 20], actual: actual, at: "/view").isEmpty)
        #expect(ScenarioDiff.partial(expected: ["/b/c/1": 21, "z": 1], actual: actual, at: "/view")
                == [.init(pointer: "/view/b/c/1", expected: 21, actual: 20), .init(pointer: "/view/z", expected: 1, actual: nil)])
    }

    @Test("changes set members and elements, and append past the end")
    func setting() {
        let base: JSON = ["a": ["b": [1, 2]], "c~/": 0]
        #expect(ScenarioDiff.setting(3, at: "/a/b/1", in: base) == ["a": ["b": [1, 3]], "c~/": 0])
        #expect(ScenarioDiff.setting(3, at: "/a/b/2", in: base) == ["a": ["b": [1, 2, 3]], "c~/": 0])
        #expect(ScenarioDiff.setting(3, at: "/a/b/-", in: base) == ["a": ["b": [1, 2, 3]], "c~/": 0])
        #expect(ScenarioDiff.setting(1, at: "/c~0~1", in: base) == ["a": ["b": [1, 2]], "c~/": 1])
        #expect(ScenarioDiff.setting(1, at: "/a/b/3", in: base) == nil)
        #expect(ScenarioDiff.setting(1, at: "/x/y", in: base) == nil)
        #expect(ScenarioDiff.setting(1, at: "/a/b/01", in: base) == nil)
        #expect(ScenarioDiff.value(at: "/a/b/0", in: base) == 1)
        #expect(ScenarioDiff.value(at: "", in: base) == base)
    }
}
