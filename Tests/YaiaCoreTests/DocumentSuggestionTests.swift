import Testing
import YaiaCore

// Misspelled members are suggested at every level, and what lies under them
// is still checked, its problems pointing into the member as written.

/// The problems of `text` as "POINTER CODE MESSAGE" lines.
private func problems(_ text: String) throws -> [String] {
    SceneDocument.check(try json(text)).map { "\($0.at) \($0.code) \($0.message)" }
}

@Suite("Scene documents: suggestions for misspelled members")
struct DocumentSuggestionTests {
    @Test("a misspelled branches: suggested, and the branches under it checked, nested typos too")
    func branches() throws {
        let found = try problems(withActions(#""b": {"payload": "string", "branch": [{"whne": true, "set": {"lst": 1}}]}"#))
        #expect(found == [
            #"/actions/b/branch unknown_member "branch" is not a member of an action with "branches"; did you mean "branches"?"#,
            #"/actions/b/branch/0/whne unknown_member "whne" is not a member of a branch; did you mean "when"?"#,
            #"/actions/b/branch/0/set/lst unknown_field "lst" is not a field of the state; did you mean "list"?"#,
        ])
    }

    @Test("the document's members, a single branch's payload, an effect's and a route's members")
    func everyLevel() throws {
        let top = try problems(#"{"yaia": 1, "scene": "t/x", "stat": {"a": 0}, "actoins": {"b": {"sett": {"a": 1}}}}"#)
        #expect(top == [
            #"/actoins unknown_member "actoins" is not a member of a scene document; did you mean "actions"?"#,
            #"/stat unknown_member "stat" is not a member of a scene document; did you mean "state"?"#,
            #"/actoins/b/sett unknown_member "sett" is not a member of a branch; did you mean "set"?"#,
        ])
        let payload = try problems(withActions(#""b": {"paylod": "strin", "set": {"a": 1}}"#))
        #expect(payload.first == #"/actions/b/paylod unknown_member "paylod" is not a member of a branch; did you mean "payload"?"#)
        #expect(payload.dropFirst().first?.hasPrefix(#"/actions/b/paylod bad_declaration "strin" is not a type"#) == true)
        let effect = try problems(withActions(#""b": {"effects": [{"servce": "s", "op": "o", "then": "nope"}]}"#))
        #expect(effect.count == 2)
        #expect(effect.first == #"/actions/b/effects/0/servce unknown_member "servce" is not a member of an effect; did you mean "service"?"#)
        #expect(effect.last?.hasPrefix(#"/actions/b/effects/0/then unknown_action "nope""#) == true)
        let route = try problems(withActions(#""b": {"route": {"psuh": "t/x", "args": {"q": {"var": "state.nope"}}}}"#))
        #expect(route.count == 2)
        #expect(route.first == #"/actions/b/route/psuh unknown_member "psuh" is not a member of a route; did you mean "push"?"#)
        #expect(route.last?.hasPrefix(#"/actions/b/route/args/q unknown_field "state.nope""#) == true)
    }
}

@Suite("Scene documents: warnings")
struct DocumentWarningTests {
    @Test("an expression in a literal object among an operator's arguments is a warning that names object")
    func literalObject() throws {
        let literal = withActions(#""add": {"set": {"list": {"append": [{"var": "state.list"}, {"id": {"var": "state.a"}, "done": false}]}}}"#)
        #expect(try documentProblems(literal).isEmpty)
        let warnings = SceneDocument.warnings(try json(literal))
        #expect(warnings.count == 1)
        #expect(warnings.first?.code == .expressionInLiteral)
        #expect(warnings.first?.at == "/actions/add/set/list/append/1")
        let message = warnings.first?.message ?? ""
        #expect(message.contains(#"the arguments of "append""#) && message.contains("/actions/add/set/list/append/1/id"))
        #expect(message.contains(#"the "object" operator"#))
        let built = withActions(#""add": {"set": {"list": {"append": [{"var": "state.list"}, {"object": {"id": {"var": "state.a"}, "done": false}}]}}}"#)
        #expect(try documentProblems(built).isEmpty)
        #expect(SceneDocument.warnings(try json(built)).isEmpty)
        // A template's own objects are evaluated member by member: nothing to warn of.
        #expect(SceneDocument.warnings(try json(withActions(#""add": {"set": {"a": {"n": {"var": "state.a"}, "m": 1}}}"#))).isEmpty)
        let nested = withActions(#""add": {"when": {"in": [{"k": [{"var": "state.a"}], "j": 1}, {"var": "state.list"}]}}"#)
        #expect(SceneDocument.warnings(try json(nested)).map(\.at) == ["/actions/add/when/in/0"])
    }
}
