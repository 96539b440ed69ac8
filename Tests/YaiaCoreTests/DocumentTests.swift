import Testing
import YaiaCore
import YaiaKit

// Scene documents driven with values: a document, an action, the expected
// state, commands and view model.

/// The login scene of docs/scene-documents.md.
let loginDocument = """
{
  "yaia": 1,
  "scene": "notes/login",
  "args": {"email": {"default": ""}},
  "state": {"email": {"var": "args.email"}, "password": "", "submitting": false, "error": null},
  "actions": {
    "emailChanged": {"payload": "string", "set": {"email": {"var": "payload"}}},
    "passwordChanged": {"payload": "string", "set": {"password": {"var": "payload"}}},
    "submit": [
      {"when": {"!": {"var": "state.submitting"}},
       "set": {"submitting": true, "error": null},
       "effects": [{"service": "auth", "op": "login",
                    "args": {"email": {"var": "state.email"}, "password": {"var": "state.password"}},
                    "then": "loginSucceeded", "catch": "loginFailed"}]},
      {"set": {"error": "Already signing in"}}
    ],
    "loginSucceeded": {"payload": {"user": "object"},
                       "set": {"submitting": false},
                       "route": {"push": "notes/list", "args": {"user": {"var": "payload.user"}}}},
    "loginFailed": {"set": {"submitting": false, "error": {"var": "payload.message"}}}
  },
  "view": {
    "email": {"var": "state.email"},
    "error": {"var": "state.error"},
    "canSubmit": {"and": [{"in": ["@", {"var": "state.email"}]}, {"!": {"var": "state.submitting"}}]}
  }
}
"""

func document(_ text: String, budget: Int = LogicRule.defaultBudget) throws -> DocumentScene {
    try DocumentScene(json(text), budget: budget)
}

/// Reduces `action` (JSON text) on `scene`.
@discardableResult
func send(_ scene: inout DocumentSceneValue, _ action: String) throws -> [Command] {
    try scene.reduce(Action(json: json(action)))
}

/// The error of reducing `action`, with the scene checked to be unchanged.
func sendError(_ scene: DocumentSceneValue, _ action: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> YaiaError? {
    var copy = scene
    let a = try Action(json: json(action))
    let error = yaiaError { () throws(YaiaError) in try copy.reduce(a) }
    #expect(copy == scene, "a failed reduction changed the scene", sourceLocation: sourceLocation)
    #expect(copy.viewModel == scene.viewModel, sourceLocation: sourceLocation)
    return error
}

@Suite("Scene documents: the login document")
struct DocumentLoginTests {
    let scene: DocumentScene

    init() throws { scene = try document(loginDocument) }

    @Test("opening evaluates the state from the arguments; the view model follows")
    func open() throws {
        let s = try scene.open(args: ["email": "a@b.c"])
        #expect(s.name == "notes/login")
        #expect(s.json == ["email": "a@b.c", "password": "", "submitting": false, "error": .null])
        #expect(s.viewModel == ["email": "a@b.c", "error": .null, "canSubmit": true])
        let empty = try scene.open()
        #expect(empty.json["email"] == "")
        #expect(empty.viewModel["canSubmit"] == false)
    }

    @Test("emailChanged sets the email from the payload")
    func emailChanged() throws {
        var s = try scene.open()
        let commands = try send(&s, #"{"type": "emailChanged", "payload": "x@y.z"}"#)
        #expect(commands == [])
        #expect(s.json == ["email": "x@y.z", "password": "", "submitting": false, "error": .null])
        #expect(s.viewModel == ["email": "x@y.z", "error": .null, "canSubmit": true])
    }

    @Test("submit: the first branch sets the flags and emits the auth effect, from the state the action found")
    func submit() throws {
        var s = try scene.open(args: ["email": "a@b.c"])
        try send(&s, #"{"type": "passwordChanged", "payload": "hunter2"}"#)
        let commands = try send(&s, #"{"type": "submit"}"#)
        #expect(commands == [.effect(Effect(service: "auth", op: "login", args: ["email": "a@b.c", "password": "hunter2"],
                                            then: "loginSucceeded", catch: "loginFailed"))])
        #expect(s.json == ["email": "a@b.c", "password": "hunter2", "submitting": true, "error": .null])
        #expect(s.viewModel["canSubmit"] == false)
    }

    @Test("submit while submitting: the second branch applies")
    func submitTwice() throws {
        var s = try scene.open(args: ["email": "a@b.c"])
        try send(&s, #"{"type": "submit"}"#)
        let commands = try send(&s, #"{"type": "submit"}"#)
        #expect(commands == [])
        #expect(s.json["error"] == "Already signing in")
        #expect(s.json["submitting"] == true)
    }

    @Test("the effect's outcomes come back as its then and catch actions, as for Swift scenes")
    func outcomes() throws {
        var s = try scene.open(args: ["email": "a@b.c"])
        let commands = try send(&s, #"{"type": "submit"}"#)
        guard case .effect(let effect)? = commands.first else {
            Issue.record("no effect")
            return
        }
        var failed = s
        let failure = try #require(effect.outcomeAction(.failure(["code": "denied", "message": "Wrong password"])))
        #expect(try failed.reduce(failure) == [])
        #expect(failed.json == ["email": "a@b.c", "password": "", "submitting": false, "error": "Wrong password"])

        let success = try #require(effect.outcomeAction(.success(["user": ["email": "a@b.c"]])))
        let routed = try s.reduce(success)
        #expect(routed == [.route(.push("notes/list", args: ["user": ["email": "a@b.c"]]))])
        #expect(s.json["submitting"] == false)
    }

    @Test("a live document scene is a LiveScene: check reads without reducing")
    func liveScene() throws {
        var live: any LiveScene = try scene.open()
        try live.check(Action("emailChanged", payload: "a@b.c"))
        #expect(try live.json["email"] == "")
        #expect(try live.reduce(Action("emailChanged", payload: "a@b.c")) == [])
        #expect(live.viewModel["email"] == "a@b.c")
        #expect(yaiaError { () throws(YaiaError) in try live.check(Action("emailChanged", payload: 1)) }?.code == .badPayload)
    }
}

@Suite("Scene documents: actions and payloads")
struct DocumentActionTests {
    @Test("an unknown action type is unknown_action at /type, with a suggestion")
    func unknownAction() throws {
        let s = try document(loginDocument).open()
        let error = try sendError(s, #"{"type": "sumbit"}"#)
        #expect(error?.code == .unknownAction)
        #expect(error?.at == "/type")
        #expect(error?.message.contains("did you mean \"submit\"") == true)
    }

    @Test("a payload of the wrong type is bad_payload at /payload; an absent one too")
    func wrongPayload() throws {
        let s = try document(loginDocument).open()
        let error = try sendError(s, #"{"type": "emailChanged", "payload": 5}"#)
        #expect(error?.code == .badPayload)
        #expect(error?.at == "/payload")
        #expect(error?.message == "emailChanged's payload must be a string, not a number")
        let missing = try sendError(s, #"{"type": "emailChanged"}"#)
        #expect(missing?.code == .badPayload)
        #expect(missing?.message == "emailChanged's payload is missing: it must be a string")
    }

    @Test("a shape's missing member is bad_payload at its pointer")
    func shape() throws {
        let s = try document(loginDocument).open()
        let error = try sendError(s, #"{"type": "loginSucceeded", "payload": {"name": "x"}}"#)
        #expect(error?.code == .badPayload)
        #expect(error?.at == "/payload/user")
    }

    static let declarations = """
    {"yaia": 1, "scene": "t/decl", "state": {"last": null},
     "actions": {
       "shape": {"payload": {"title": "string", "id": "integer", "note": "string?", "tags": ["string"],
                             "inner": {"done": "boolean"}},
                 "set": {"last": {"var": "payload"}}},
       "optional": {"payload": "number?", "set": {"last": {"var": "payload"}}},
       "anything": {"payload": "any", "set": {"last": {"var": "payload"}}},
       "undeclared": {"set": {"last": {"var": "payload"}}},
       "schema": {"payload": {"schema": {"type": "object", "required": ["title"], "additionalProperties": false,
                   "properties": {"title": {"type": "string", "minLength": 1, "maxLength": 3},
                                  "n": {"type": "integer", "minimum": 0, "maximum": 9},
                                  "kind": {"enum": ["a", "b"]},
                                  "list": {"type": "array", "items": {"type": ["string", "null"]}}}}},
                  "set": {"last": {"var": "payload"}}}
     }}
    """

    @Test("object shapes: required members, optional ones, arrays of a type, nested shapes")
    func shapes() throws {
        var s = try document(Self.declarations).open()
        try send(&s, #"{"type": "shape", "payload": {"title": "t", "id": 2, "tags": ["a"], "inner": {"done": true}, "extra": 1}}"#)
        #expect(s.json["last"]?["extra"] == 1)
        try send(&s, #"{"type": "shape", "payload": {"title": "t", "id": 2, "note": null, "tags": [], "inner": {"done": false}}}"#)
        let cases: [(String, String)] = [
            (#"{"title": "t", "id": 2.5, "tags": [], "inner": {"done": true}}"#, "/payload/id"),
            (#"{"title": "t", "id": 2, "tags": [1], "inner": {"done": true}}"#, "/payload/tags/0"),
            (#"{"title": "t", "id": 2, "tags": [], "inner": {}}"#, "/payload/inner/done"),
            (#"{"title": "t", "id": 2, "tags": [], "inner": {"done": true}, "note": 3}"#, "/payload/note"),
            (#"{"id": 2, "tags": [], "inner": {"done": true}}"#, "/payload/title"),
        ]
        for (payload, at) in cases {
            let error = try sendError(s, #"{"type": "shape", "payload": \#(payload)}"#)
            #expect(error?.code == .badPayload, "\(payload)")
            #expect(error?.at == at, "\(payload)")
        }
    }

    @Test("optional and any payloads take nothing; an undeclared payload is anything")
    func optional() throws {
        var s = try document(Self.declarations).open()
        try send(&s, #"{"type": "optional"}"#)
        try send(&s, #"{"type": "optional", "payload": 3}"#)
        #expect(s.json["last"] == 3)
        #expect(try sendError(s, #"{"type": "optional", "payload": "3"}"#)?.code == .badPayload)
        try send(&s, #"{"type": "anything", "payload": [1]}"#)
        try send(&s, #"{"type": "anything"}"#)
        #expect(s.json["last"] == .null)
        try send(&s, #"{"type": "undeclared", "payload": {"a": 1}}"#)
        #expect(s.json["last"] == ["a": 1])
    }

    @Test("the JSON Schema subset: required, additionalProperties, lengths, bounds, enum, items")
    func schema() throws {
        var s = try document(Self.declarations).open()
        try send(&s, #"{"type": "schema", "payload": {"title": "abc", "n": 9, "kind": "b", "list": ["x", null]}}"#)
        let cases: [(String, String)] = [
            (#"{}"#, "/payload/title"),
            (#"{"title": ""}"#, "/payload/title"),
            (#"{"title": "abcd"}"#, "/payload/title"),
            (#"{"title": "ab", "n": -1}"#, "/payload/n"),
            (#"{"title": "ab", "n": 10}"#, "/payload/n"),
            (#"{"title": "ab", "n": 1.5}"#, "/payload/n"),
            (#"{"title": "ab", "kind": "c"}"#, "/payload/kind"),
            (#"{"title": "ab", "list": [1]}"#, "/payload/list/0"),
            (#"{"title": "ab", "other": 1}"#, "/payload/other"),
        ]
        for (payload, at) in cases {
            let error = try sendError(s, #"{"type": "schema", "payload": \#(payload)}"#)
            #expect(error?.code == .badPayload, "\(payload)")
            #expect(error?.at == at, "\(payload)")
        }
        // Length counts code points, not bytes: three characters.
        try send(&s, #"{"type": "schema", "payload": {"title": "éèê"}}"#)
    }

    static let branches = """
    {"yaia": 1, "scene": "t/branches", "state": {"n": 0, "log": ""},
     "actions": {
       "pick": {"payload": "number", "branches": [
         {"when": {"==": [{"var": "payload"}, 1]}, "set": {"log": "one"}},
         {"when": {"==": [{"var": "payload"}, 2]}, "set": {"log": "two"}},
         {"when": {"in": [{"var": "payload"}, [1, 2, 3]]}, "set": {"log": "small"}}
       ]},
       "guarded": {"when": {"var": "state.n"}, "set": {"log": "n is set"}},
       "bump": {"set": {"n": {"+": [{"var": "state.n"}, 1]}, "log": {"cat": ["was ", {"var": "state.n"}]}}}
     }}
    """

    @Test("the first branch whose when holds applies; none holding changes nothing")
    func firstMatch() throws {
        var s = try document(Self.branches).open()
        try send(&s, #"{"type": "pick", "payload": 2}"#)
        #expect(s.json["log"] == "two")
        try send(&s, #"{"type": "pick", "payload": 1}"#)
        #expect(s.json["log"] == "one")
        try send(&s, #"{"type": "pick", "payload": 3}"#)
        #expect(s.json["log"] == "small")
        let before = s
        #expect(try send(&s, #"{"type": "pick", "payload": 9}"#) == [])
        #expect(s == before)
        #expect(try sendError(s, #"{"type": "pick", "payload": "1"}"#)?.code == .badPayload)
    }

    @Test("a single guarded branch: no match is no change; every set reads the state as the action found it")
    func guarded() throws {
        var s = try document(Self.branches).open()
        try send(&s, #"{"type": "guarded"}"#)
        #expect(s.json["log"] == "")
        try send(&s, #"{"type": "bump"}"#)
        #expect(s.json["n"] == 1)
        #expect(s.json["log"] == "was 0")
        try send(&s, #"{"type": "guarded"}"#)
        #expect(s.json["log"] == "n is set")
    }
}

@Suite("Scene documents: set paths")
struct DocumentSetTests {
    static let text = """
    {"yaia": 1, "scene": "t/paths",
     "state": {"items": [{"title": "a", "done": false}, {"title": "b", "done": false}], "draft": {}, "count": 0},
     "actions": {
       "toggle": {"payload": "integer", "set": {"items.1.done": true}},
       "title": {"payload": "string", "set": {"draft.meta.title": {"var": "payload"}}},
       "both": {"set": {"draft": {"literal": {"a": 1}}, "draft.b": 2}},
       "outside": {"set": {"items.5.done": true}},
       "through": {"set": {"count.x": 1}},
       "key": {"set": {"items.x": 1}}
     }}
    """

    @Test("a nested path sets inside arrays and objects, creating missing members")
    func nested() throws {
        var s = try document(Self.text).open()
        try send(&s, #"{"type": "toggle", "payload": 1}"#)
        #expect(s.json["items"] == [["title": "a", "done": false], ["title": "b", "done": true]])
        try send(&s, #"{"type": "title", "payload": "Hi"}"#)
        #expect(s.json["draft"] == ["meta": ["title": "Hi"]])
    }

    @Test("paths apply in byte order: a parent before its members")
    func order() throws {
        var s = try document(Self.text).open()
        try send(&s, #"{"type": "both"}"#)
        #expect(s.json["draft"] == ["a": 1, "b": 2])
    }

    @Test("a path that cannot be followed fails the reduction with document_failed, nothing changed")
    func failures() throws {
        let s = try document(Self.text).open()
        for type in ["outside", "through", "key"] {
            let error = try sendError(s, #"{"type": "\#(type)"}"#)
            #expect(error?.code == .documentFailed, "\(type)")
        }
    }
}

@Suite("Scene documents: commands")
struct DocumentCommandTests {
    static let text = """
    {"yaia": 1, "scene": "t/commands", "state": {"q": "x", "id": 7},
     "actions": {
       "search": {"cancel": "search",
                  "effects": [{"service": "api", "op": "find", "args": {"q": {"var": "state.q"}, "page": 1},
                               "then": "found", "catch": "failed", "id": "search", "policy": "latest",
                               "timeout": 2.5, "restore": "reissue"},
                              {"service": "log", "op": "note", "id": {"cat": ["note-", {"var": "state.id"}]},
                               "policy": "queue"}],
                  "route": {"present": "t/other", "args": {"literal": {"var": "kept"}}, "onResult": "found"}},
       "found": {"payload": "any"},
       "failed": {"route": {"pop": true, "result": {"id": {"var": "state.id"}}}},
       "many": {"cancel": ["a", "b"]},
       "back": [{"when": {"var": "payload"}, "route": {"popTo": "t/home"}}, {"route": {"popToRoot": true}}],
       "swap": {"route": {"replace": "t/other"}},
       "close": {"route": {"dismiss": true}},
       "badId": {"effects": [{"service": "s", "op": "o", "id": {"var": "state.id"}}]},
       "badCancel": {"cancel": {"var": "state.id"}}
     }}
    """

    @Test("cancels, then effects in order, then the route; every effect member maps onto Effect")
    func order() throws {
        var s = try document(Self.text).open()
        let commands = try send(&s, #"{"type": "search"}"#)
        #expect(commands == [
            .cancel("search"),
            .effect(Effect(service: "api", op: "find", args: ["q": "x", "page": 1], then: "found", catch: "failed",
                           options: .init(id: "search", timeout: 2.5, policy: .latest, restore: .reissue))),
            .effect(Effect(service: "log", op: "note", options: .init(id: "note-7", policy: .queue))),
            .route(.present("t/other", args: ["var": "kept"], onResult: "found")),
        ])
    }

    @Test("every route kind")
    func routes() throws {
        var s = try document(Self.text).open()
        #expect(try send(&s, #"{"type": "failed"}"#) == [.route(.pop(result: ["id": 7]))])
        #expect(try send(&s, #"{"type": "back", "payload": true}"#) == [.route(.popTo("t/home"))])
        #expect(try send(&s, #"{"type": "back"}"#) == [.route(.popToRoot)])
        #expect(try send(&s, #"{"type": "swap"}"#) == [.route(.replace("t/other"))])
        #expect(try send(&s, #"{"type": "close"}"#) == [.route(.dismiss())])
        #expect(try send(&s, #"{"type": "many"}"#) == [.cancel("a"), .cancel("b")])
    }

    @Test("an effect id or a cancel that is no string fails the reduction")
    func badKeys() throws {
        let s = try document(Self.text).open()
        #expect(try sendError(s, #"{"type": "badId"}"#)?.code == .documentFailed)
        #expect(try sendError(s, #"{"type": "badCancel"}"#)?.code == .documentFailed)
    }
}

@Suite("Scene documents: arguments, env, snapshots, budget")
struct DocumentLifeTests {
    static let args = """
    {"yaia": 1, "scene": "t/args",
     "args": {"user": {"type": {"email": "string"}}, "limit": {"default": 10}, "tag": {"type": "string?"}},
     "state": {"email": {"var": "args.user.email"}, "limit": {"var": "args.limit"}, "tag": {"var": "args.tag"},
               "openedAt": {"var": "env.now"}},
     "actions": {"stamp": {"set": {"openedAt": {"now": []}}}}}
    """

    @Test("defaults fill in; required, unknown and mistyped arguments are bad_args at the argument")
    func arguments() throws {
        let scene = try document(Self.args)
        let s = try scene.open(args: ["user": ["email": "a@b.c"]], env: ["now": 5])
        #expect(s.json == ["email": "a@b.c", "limit": 10, "tag": .null, "openedAt": 5])
        let cases: [(JSON, String?)] = [
            ([:], "/user"),
            (["user": ["email": 1]], "/user/email"),
            (["user": ["email": "a"], "limit": "x"], "/limit"),
            (["user": ["email": "a"], "limt": 1], "/limt"),
            ([1], nil),
        ]
        for (args, at) in cases {
            let error = yaiaError { () throws(YaiaError) in try scene.open(args: args) }
            #expect(error?.code == .badArgs, "\(args)")
            #expect(error?.at == at, "\(args)")
        }
        let typo = yaiaError { () throws(YaiaError) in try scene.open(args: ["user": ["email": "a"], "limt": 1]) }
        #expect(typo?.message.contains("did you mean \"limit\"") == true)
    }

    @Test("a document without args takes none")
    func noArguments() throws {
        let scene = try document(DocumentActionTests.branches)
        #expect(yaiaError { () throws(YaiaError) in try scene.open(args: ["x": 1]) }?.code == .badArgs)
        _ = try scene.open(args: [:])
    }

    @Test("env is what the host passes in, per reduction or stored on the scene")
    func env() throws {
        var s = try document(Self.args).open(args: ["user": ["email": "a"]], env: ["now": 1])
        _ = try s.reduce(Action("stamp"), env: ["now": 2])
        #expect(s.json["openedAt"] == 2)
        s.env = ["now": 3]
        _ = try s.reduce(Action("stamp"))
        #expect(s.json["openedAt"] == 3)
    }

    @Test("a snapshot is the state; restoring it gives an equal scene; bad states are refused")
    func snapshot() throws {
        let scene = try document(loginDocument)
        var s = try scene.open(args: ["email": "a@b.c"])
        try send(&s, #"{"type": "submit"}"#)
        let restored = try scene.restore(state: s.json)
        #expect(restored == s)
        #expect(restored.viewModel == s.viewModel)
        var missing = s.json.objectValue ?? [:]
        missing["password"] = nil
        var extra = s.json.objectValue ?? [:]
        extra["pasword"] = ""
        let cases: [(JSON, String?)] = [
            (.array([]), nil),
            (.object(missing), "/password"),
            (.object(extra), "/pasword"),
        ]
        for (state, at) in cases {
            let error = yaiaError { () throws(YaiaError) in try scene.restore(state: state) }
            #expect(error?.code == .badState, "\(state)")
            #expect(error?.at == at, "\(state)")
        }
    }

    static let costly = """
    {"yaia": 1, "scene": "t/costly", "state": {"list": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "a": [], "b": []},
     "actions": {
       "one": {"set": {"a": {"map": [{"var": "state.list"}, {"+": [{"var": ""}, 1]}]}}},
       "two": {"set": {"a": {"map": [{"var": "state.list"}, {"+": [{"var": ""}, 1]}]},
                       "b": {"map": [{"var": "state.list"}, {"+": [{"var": ""}, 2]}]}}}
     }}
    """

    @Test("one step budget covers the whole reduction: two expressions that fit alone fail together")
    func budget() throws {
        // The smallest budget that fits one map.
        // No share of the data: the base is the whole budget.
        func costly(_ budget: Int) throws -> DocumentScene {
            var scene = try document(Self.costly, budget: budget)
            scene.stepsPerUnit = 0
            return scene
        }
        var cost = 1
        while cost < 10_000 {
            var trial = try costly(cost).open()
            if (try? send(&trial, #"{"type": "one"}"#)) != nil { break }
            cost += 1
        }
        var s = try costly(cost).open()
        try send(&s, #"{"type": "one"}"#)
        #expect(s.json["a"] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
        let error = try sendError(s, #"{"type": "two"}"#)
        #expect(error?.code == .logicBudgetExceeded)
    }
}
