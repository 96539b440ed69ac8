import Testing
import YaiaCore
import YaiaKit

// Loading a scene document: every rule, each with a document that breaks it.

/// The problems of a document, as (code, at) pairs.
func documentProblems(_ text: String, catalog: Set<String>? = nil) throws -> [(code: String, at: String)] {
    SceneDocument.check(try json(text), catalog: catalog).map { ($0.code.rawValue, $0.at) }
}

/// Expects `text` to have a problem `code` at `at` (among others, maybe).
func expectProblem(_ text: String, _ code: String, at: String, catalog: Set<String>? = nil,
                   sourceLocation: SourceLocation = #_sourceLocation) throws {
    let found = try documentProblems(text, catalog: catalog)
    #expect(found.contains { $0.code == code && $0.at == at }, "expected \(code) at \(at); found \(found)",
            sourceLocation: sourceLocation)
}

/// A valid document with `actions` (JSON text of the object's inside) and the state {"a": 0, "list": []}.
func withActions(_ actions: String, view: String = "{}") -> String {
    let more = actions.isEmpty ? "" : ", " + actions
    return #"{"yaia": 1, "scene": "t/x", "state": {"a": 0, "list": []}, "actions": {"done": {}\#(more)}, "view": \#(view)}"#
}

@Suite("Scene documents: checking")
struct DocumentCheckTests {
    @Test("the example documents have no problems")
    func valid() throws {
        for text in [loginDocument, DocumentActionTests.declarations, DocumentActionTests.branches, DocumentSetTests.text,
                     DocumentCommandTests.text, DocumentLifeTests.args, DocumentLifeTests.costly] {
            #expect(try documentProblems(text).isEmpty, "\(text)")
        }
        #expect(try documentProblems(loginDocument, catalog: ["notes/list"]).isEmpty)
    }

    @Test("a document must be an object; yaia must be a version this runtime reads")
    func version() throws {
        #expect(try documentProblems("[]").map(\.code) == ["wrong_type"])
        try expectProblem(#"{"yaia": 2, "scene": "t", "state": {}, "actions": {}}"#, "bad_version", at: "/yaia")
        try expectProblem(#"{"yaia": "1", "scene": "t", "state": {}, "actions": {}}"#, "bad_version", at: "/yaia")
        // Without "yaia" the version is what is wrong (bad_version), as for any other value of it.
        #expect(try documentProblems(#"{"scene": "t", "state": {}, "actions": {}}"#).map(\.code) == ["bad_version"])
        #expect(try documentProblems(#"{"yaia": 1.0, "scene": "t", "state": {}, "actions": {}}"#).isEmpty)
    }

    @Test("missing required members, unknown members with a suggestion, wrong types")
    func members() throws {
        let found = SceneDocument.check(try json(#"{"yaia": 1, "scene": 3, "state": {}, "actoins": {}}"#))
        // "actoins" is read as the "actions" it misspells: no second problem says "actions" is missing.
        #expect(!found.contains { $0.code == .missingMember })
        try expectProblem(#"{"yaia": 1, "scene": "t", "state": {}}"#, "missing_member", at: "")
        #expect(found.contains { $0.code == .unknownMember && $0.at == "/actoins" && $0.message.contains("did you mean \"actions\"?") })
        #expect(found.contains { $0.code == .wrongType && $0.at == "/scene" })
        try expectProblem(#"{"yaia": 1, "scene": "", "state": {}, "actions": {}}"#, "bad_value", at: "/scene")
        try expectProblem(#"{"yaia": 1, "scene": "t", "state": [], "actions": {}}"#, "wrong_type", at: "/state")
        try expectProblem(#"{"yaia": 1, "scene": "t", "state": {}, "actions": {}, "view": 1}"#, "wrong_type", at: "/view")
        try expectProblem(#"{"yaia": 1, "scene": "t", "description": 1, "state": {}, "actions": {}}"#, "wrong_type", at: "/description")
        try expectProblem(withActions(#""b": 1"#), "wrong_type", at: "/actions/b")
        try expectProblem(withActions(#""b": {"sett": {}}"#), "unknown_member", at: "/actions/b/sett")
        try expectProblem(withActions(#""b": {"effects": {}}"#), "wrong_type", at: "/actions/b/effects")
        try expectProblem(withActions(#""b": {"effects": [{"op": "o"}]}"#), "missing_member", at: "/actions/b/effects/0")
        try expectProblem(withActions(#""b": {"effects": [{"service": "s", "op": "o", "thne": "done"}]}"#),
                          "unknown_member", at: "/actions/b/effects/0/thne")
    }

    @Test("argument declarations: members, types, defaults that do not match their type")
    func arguments() throws {
        func doc(_ args: String) -> String { #"{"yaia": 1, "scene": "t", "args": \#(args), "state": {}, "actions": {}}"# }
        try expectProblem(doc("[]"), "wrong_type", at: "/args")
        try expectProblem(doc(#"{"a": 1}"#), "wrong_type", at: "/args/a")
        try expectProblem(doc(#"{"a": {"defualt": 1}}"#), "unknown_member", at: "/args/a/defualt")
        try expectProblem(doc(#"{"a": {"type": "strin"}}"#), "bad_declaration", at: "/args/a/type")
        try expectProblem(doc(#"{"a": {"type": "string", "default": 1}}"#), "bad_value", at: "/args/a/default")
    }

    @Test("branches: an action needs one; a branch after one without when is unreachable; payload belongs to the action")
    func branches() throws {
        try expectProblem(withActions(#""b": []"#), "bad_value", at: "/actions/b")
        try expectProblem(withActions(#""b": {"branches": []}"#), "bad_value", at: "/actions/b/branches")
        try expectProblem(withActions(#""b": {"branches": {}}"#), "wrong_type", at: "/actions/b/branches")
        try expectProblem(withActions(#""b": [{"set": {"a": 1}}, {"when": true}]"#), "unreachable_branch", at: "/actions/b/1")
        try expectProblem(withActions(#""b": [{"payload": "string"}]"#), "unknown_member", at: "/actions/b/0/payload")
        try expectProblem(withActions(#""b": {"branches": [{}], "when": true}"#), "unknown_member", at: "/actions/b/when")
        try expectProblem(withActions(#""b": [1]"#), "wrong_type", at: "/actions/b/0")
    }

    @Test("then, catch and onResult must name actions of the document")
    func actionNames() throws {
        let found = SceneDocument.check(try json(withActions(#""b": {"effects": [{"service": "s", "op": "o", "then": "don", "catch": "nope"}], "route": {"push": "t/y", "onResult": "x"}}"#)))
        #expect(found.contains { $0.code == .unknownAction && $0.at == "/actions/b/effects/0/then" && $0.message.contains("did you mean \"done\"?") })
        #expect(found.contains { $0.code == .unknownAction && $0.at == "/actions/b/effects/0/catch" })
        #expect(found.contains { $0.code == .unknownAction && $0.at == "/actions/b/route/onResult" })
    }

    @Test("a route to a scene the catalog does not have, when its names are given; the document itself counts")
    func scenes() throws {
        let text = withActions(#""b": {"route": {"push": "notes/lsit"}}, "c": {"route": {"replace": "t/x"}}"#)
        #expect(try documentProblems(text).isEmpty)
        let found = SceneDocument.check(try json(text), catalog: ["notes/list"])
        #expect(found.count == 1)
        #expect(found.first?.code == .unknownScene)
        #expect(found.first?.at == "/actions/b/route/push")
        #expect(found.first?.message.contains("did you mean \"notes/list\"?") == true)
    }

    @Test("routes: one kind, its members, its values")
    func routes() throws {
        try expectProblem(withActions(#""b": {"route": {}}"#), "bad_value", at: "/actions/b/route")
        try expectProblem(withActions(#""b": {"route": {"push": "x", "pop": true}}"#), "bad_value", at: "/actions/b/route")
        try expectProblem(withActions(#""b": {"route": {"pop": 1}}"#), "bad_value", at: "/actions/b/route/pop")
        try expectProblem(withActions(#""b": {"route": {"pop": true, "args": {}}}"#), "unknown_member", at: "/actions/b/route/args")
        try expectProblem(withActions(#""b": {"route": {"push": 1}}"#), "wrong_type", at: "/actions/b/route/push")
        try expectProblem(withActions(#""b": {"route": "back"}"#), "wrong_type", at: "/actions/b/route")
    }

    @Test("effect members: names, timeout, policy, restore, id")
    func effects() throws {
        func effect(_ members: String) -> String { withActions(#""b": {"effects": [{"service": "s", "op": "o", \#(members)}]}"#) }
        try expectProblem(effect(#""timeout": -1"#), "bad_value", at: "/actions/b/effects/0/timeout")
        try expectProblem(effect(#""timeout": "1""#), "wrong_type", at: "/actions/b/effects/0/timeout")
        try expectProblem(effect(#""policy": "lates""#), "bad_value", at: "/actions/b/effects/0/policy")
        try expectProblem(effect(#""restore": 1"#), "wrong_type", at: "/actions/b/effects/0/restore")
        try expectProblem(effect(#""id": """#), "bad_value", at: "/actions/b/effects/0/id")
        try expectProblem(withActions(#""b": {"effects": [{"service": "", "op": "o"}]}"#), "bad_value", at: "/actions/b/effects/0/service")
        try expectProblem(withActions(#""b": {"cancel": 5}"#), "bad_value", at: "/actions/b/cancel")
        try expectProblem(withActions(#""b": {"cancel": ["a", ""]}"#), "bad_value", at: "/actions/b/cancel")
    }

    @Test("expressions: unknown operators (in a when, inside an operator), roots by place, unknown state fields")
    func expressions() throws {
        try expectProblem(withActions(#""b": {"when": {"varr": "state.a"}}"#), "unknown_operator", at: "/actions/b/when/varr")
        try expectProblem(withActions(#""b": {"set": {"a": {"if": [{"nope": 1}, 1, 2]}}}"#), "unknown_operator", at: "/actions/b/set/a/if/0/nope")
        // Roots: no args in actions, no payload in the view, no state in the initial state, no unknown root anywhere.
        try expectProblem(withActions(#""b": {"set": {"a": {"var": "args.x"}}}"#), "unknown_root", at: "/actions/b/set/a/var")
        try expectProblem(withActions("", view: #"{"v": {"var": "payload"}}"#), "unknown_root", at: "/view/v/var")
        try expectProblem(withActions("", view: #"{"v": {"var": "env.now"}}"#), "unknown_root", at: "/view/v/var")
        try expectProblem(withActions("", view: #"{"v": {"now": []}}"#), "unknown_root", at: "/view/v/now")
        try expectProblem(#"{"yaia": 1, "scene": "t", "state": {"a": {"var": "state.b"}}, "actions": {}}"#, "unknown_root", at: "/state/a/var")
        try expectProblem(withActions(#""b": {"effects": [{"service": "s", "op": "o", "args": {"x": {"var": "sate.a"}}}]}"#),
                          "unknown_root", at: "/actions/b/effects/0/args/x/var")
        // Fields: a var of an undeclared field, a set of one.
        let found = SceneDocument.check(try json(withActions(#""b": {"when": {"var": "state.aa"}, "set": {"lst": []}}"#)))
        #expect(found.contains { $0.code == .unknownField && $0.at == "/actions/b/when" && $0.message.contains("did you mean \"a\"?") })
        #expect(found.contains { $0.code == .unknownField && $0.at == "/actions/b/set/lst" && $0.message.contains("did you mean \"list\"?") })
    }

    @Test("a one-member object that names no operator is an object outside a when; literal is never evaluated")
    func templates() throws {
        #expect(try documentProblems(withActions(#""b": {"set": {"a": {"user": {"var": "payload"}}, "list": {"literal": {"varr": 1}}}}"#)).isEmpty)
        var s = try DocumentScene(json(withActions(#""b": {"set": {"a": {"user": {"var": "payload"}}, "list": {"literal": {"var": "payload"}}}}"#))).open()
        _ = try s.reduce(Action("b", payload: 5))
        #expect(s.json == ["a": ["user": 5], "list": ["var": "payload"]])
    }

    @Test("set paths: empty steps are bad_path")
    func paths() throws {
        try expectProblem(withActions(#""b": {"set": {"list..x": 1}}"#), "bad_path", at: "/actions/b/set/list..x")
        try expectProblem(withActions(#""b": {"set": {"a.": 1}}"#), "bad_path", at: "/actions/b/set/a.")
    }

    @Test("payload declarations that cannot be read")
    func declarations() throws {
        func payload(_ d: String) -> String { withActions(#""b": {"payload": \#(d)}"#) }
        try expectProblem(payload(#""strng""#), "bad_declaration", at: "/actions/b/payload")
        try expectProblem(payload("1"), "bad_declaration", at: "/actions/b/payload")
        try expectProblem(payload(#"["string", "number"]"#), "bad_declaration", at: "/actions/b/payload")
        try expectProblem(payload(#"{"title": "text"}"#), "bad_declaration", at: "/actions/b/payload/title")
        try expectProblem(payload(#"{"schema": {"type": "text"}}"#), "bad_declaration", at: "/actions/b/payload/schema/type")
        try expectProblem(payload(#"{"schema": {"pattern": "x"}}"#), "bad_declaration", at: "/actions/b/payload/schema/pattern")
        try expectProblem(payload(#"{"schema": {"required": "x"}}"#), "bad_declaration", at: "/actions/b/payload/schema/required")
        try expectProblem(payload(#"{"schema": {"minLength": -1}}"#), "bad_declaration", at: "/actions/b/payload/schema/minLength")
        try expectProblem(payload(#"{"schema": {"properties": {"a": {"maximum": "9"}}}}"#), "bad_declaration",
                          at: "/actions/b/payload/schema/properties/a/maximum")
        try expectProblem(payload(#"{"schema": 1}"#), "bad_declaration", at: "/actions/b/payload/schema")
    }

    @Test("every problem at once; loading throws one bad_document carrying them all")
    func allAtOnce() throws {
        let text = #"""
        {"yaia": 1, "scene": "notes/login", "state": {"email": ""},
         "actions": {"submit": {"effects": [{"service": "auth", "op": "login", "thne": "ok", "catch": "loginFaild"}]},
                     "ok": {"when": {"nope": 1}}}}
        """#
        let document = try json(text)
        let found = SceneDocument.check(document)
        #expect(found.map(\.code.rawValue) == ["unknown_operator", "unknown_member", "unknown_action"])
        let error = yaiaError { () throws(YaiaError) in try SceneDocument(document) }
        #expect(error?.code == .badDocument)
        #expect(error?.at == found.first?.at)
        #expect(error?.message.hasPrefix("scene document \"notes/login\" has 3 problems; the first: ") == true)
        #expect(error?.problems == .array(found.map(\.json)))
        #expect(error?.json["problems"]?.arrayValue?.count == 3)
    }
}
