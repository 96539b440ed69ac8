import Testing
import YaiaCore
import YaiaKit

@Suite("Action")
struct ActionTests {
    @Test("JSON form: only what is set")
    func jsonForm() {
        #expect(Action("go").json == ["type": "go"])
        #expect(Action("go").json.serialized() == "{\"type\":\"go\"}")
        #expect(Action("go", payload: .null).json == ["type": "go", "payload": .null])
        #expect(Action("go", payload: [1]).json == ["type": "go", "payload": [1]])
        #expect(Action("go", payload: "x", error: true, meta: ["m": 1]).json.serialized()
            == "{\"error\":true,\"meta\":{\"m\":1},\"payload\":\"x\",\"type\":\"go\"}")
        // error: false is the default and is not written.
        #expect(Action("go", error: false).json == ["type": "go"])
    }

    static let actions: [Action] = [
        Action("a"),
        Action("a", payload: .null),
        Action("b", payload: ["x": [1, 2]]),
        Action("c", payload: "s", error: true),
        Action("d", meta: ["trace": 7]),
        Action("e", payload: 1, error: true, meta: "m"),
    ]

    @Test("reads back its own JSON form", arguments: actions)
    func roundTrip(action: Action) throws {
        #expect(try Action(json: action.json) == action)
        #expect(try Action(json: JSONParser.parse(action.json.serialized())) == action)
    }

    @Test("reads FSA fields from an object")
    func reads() throws {
        let action = try Action(json: json("{\"type\":\"t\",\"payload\":{\"a\":1},\"error\":false,\"meta\":null}"))
        #expect(action.type == "t")
        #expect(action.payload == ["a": 1])
        #expect(action.error == false)
        #expect(action.meta == .some(.null))
        // Unknown members are ignored.
        #expect(try Action(json: json("{\"type\":\"t\",\"extra\":1}")) == Action("t"))
    }

    static let bad: [(String, ErrorCode, String)] = [
        ("[]", .notAnObject, ""),
        ("\"submit\"", .notAnObject, ""),
        ("null", .notAnObject, ""),
        ("{}", .missingActionType, "/type"),
        ("{\"type\":1}", .missingActionType, "/type"),
        ("{\"type\":null}", .missingActionType, "/type"),
        ("{\"payload\":1}", .missingActionType, "/type"),
        ("{\"type\":\"t\",\"error\":\"yes\"}", .badPayload, "/error"),
        ("{\"type\":\"t\",\"error\":1}", .badPayload, "/error"),
    ]

    @Test("refuses malformed actions, locating the fault", arguments: bad)
    func refuses(text: String, code: ErrorCode, at: String) throws {
        let value = try json(text)
        let error = yaiaError { () throws(YaiaError) in try Action(json: value) }
        #expect(error?.code == code)
        #expect(error?.at == at)
        // Under a pointer, the location is nested.
        let nested = yaiaError { () throws(YaiaError) in try Action(json: value, at: "/action") }
        #expect(nested?.code == code)
        #expect(nested?.at == "/action" + at)
    }
}

@Suite("Effect and Outcome")
struct EffectTests {
    let effect = Effect(service: "auth", op: "login", args: ["email": "a@b.c"], then: "ok", catch: "failed")

    @Test("JSON form")
    func jsonForm() {
        #expect(effect.json.serialized()
            == "{\"args\":{\"email\":\"a@b.c\"},\"catch\":\"failed\",\"op\":\"login\",\"service\":\"auth\",\"then\":\"ok\"}")
        // Without continuations and args: args is null, then/catch absent.
        #expect(Effect(service: "s", op: "o").json == ["service": "s", "op": "o", "args": .null])
        #expect(Effect(service: "s", op: "o", then: "t").json == ["service": "s", "op": "o", "args": .null, "then": "t"])
    }

    static let effects: [Effect] = [
        Effect(service: "s", op: "o"),
        Effect(service: "auth", op: "login", args: ["email": "a@b.c"], then: "ok", catch: "failed"),
        Effect(service: "search", op: "query", args: "q", then: "t", options: .init(id: "search", timeout: 2.5, policy: .latest)),
        Effect(service: "jobs", op: "run", args: [1], catch: "c", options: .init(id: "jobs", policy: .queue)),
        Effect(service: "s", op: "o", options: .init(timeout: 1)),
        Effect(service: "s", op: "o", options: .init(restore: .reissue)),
        Effect(service: "s", op: "o", options: .init(restore: .await)),
    ]

    @Test("reads back its own JSON form", arguments: effects)
    func roundTrip(effect: Effect) throws {
        #expect(try Effect(json: effect.json) == effect)
        #expect(try Effect(json: JSONParser.parse(effect.json.serialized())) == effect)
    }

    @Test("the optional keys are written only when set")
    func optionalKeys() {
        #expect(Effect(service: "s", op: "o", options: .init(id: "k", timeout: 1.5, policy: .queue)).json
            == ["service": "s", "op": "o", "args": .null, "id": "k", "timeout": 1.5, "policy": "queue"])
        // The default policy and restore policy are not written.
        #expect(Effect(service: "s", op: "o", options: .init(policy: .concurrent, restore: .cancel)).json == ["service": "s", "op": "o", "args": .null])
        #expect(Effect(service: "s", op: "o", options: .init(restore: .reissue)).json == ["service": "s", "op": "o", "args": .null, "restore": "reissue"])
    }

    static let badEffects: [(String, ErrorCode, String)] = [
        ("[]", .notAnObject, ""),
        ("{\"op\":\"o\"}", .badRequest, "/service"),
        ("{\"service\":\"\",\"op\":\"o\"}", .badRequest, "/service"),
        ("{\"service\":\"s\"}", .badRequest, "/op"),
        ("{\"service\":\"s\",\"op\":1}", .badRequest, "/op"),
        ("{\"service\":\"s\",\"op\":\"o\",\"then\":5}", .badRequest, "/then"),
        ("{\"service\":\"s\",\"op\":\"o\",\"catch\":\"\"}", .badRequest, "/catch"),
        ("{\"service\":\"s\",\"op\":\"o\",\"id\":[]}", .badRequest, "/id"),
        ("{\"service\":\"s\",\"op\":\"o\",\"timeout\":0}", .badRequest, "/timeout"),
        ("{\"service\":\"s\",\"op\":\"o\",\"timeout\":-1}", .badRequest, "/timeout"),
        ("{\"service\":\"s\",\"op\":\"o\",\"timeout\":\"1\"}", .badRequest, "/timeout"),
        ("{\"service\":\"s\",\"op\":\"o\",\"policy\":\"newest\"}", .badRequest, "/policy"),
        ("{\"service\":\"s\",\"op\":\"o\",\"policy\":1}", .badRequest, "/policy"),
        ("{\"service\":\"s\",\"op\":\"o\",\"restore\":\"keep\"}", .badRequest, "/restore"),
    ]

    @Test("refuses malformed effects, locating the fault", arguments: badEffects)
    func refuses(text: String, code: ErrorCode, at: String) throws {
        let value = try json(text)
        let error = yaiaError { () throws(YaiaError) in try Effect(json: value, at: "/effect") }
        #expect(error?.code == code)
        #expect(error?.at == "/effect" + at)
    }

    @Test("a result becomes the then action")
    func success() {
        #expect(effect.outcomeAction(.success(["user": 1])) == Action("ok", payload: ["user": 1]))
        #expect(effect.outcomeAction(.success(["user": 1]))?.error == false)
    }

    @Test("an error becomes the catch action, flagged as an error")
    func failure() {
        let action = effect.outcomeAction(.failure(["message": "no"]))
        #expect(action == Action("failed", payload: ["message": "no"], error: true))
        #expect(action?.error == true)
        #expect(action?.json == ["type": "failed", "payload": ["message": "no"], "error": true])
    }

    @Test("no action when the effect asked for none")
    func absent() {
        let thenOnly = Effect(service: "s", op: "o", then: "t")
        #expect(thenOnly.outcomeAction(.failure("e")) == nil)
        #expect(thenOnly.outcomeAction(.success(1)) == Action("t", payload: 1))
        let catchOnly = Effect(service: "s", op: "o", catch: "c")
        #expect(catchOnly.outcomeAction(.success(1)) == nil)
        #expect(catchOnly.outcomeAction(.failure(.null)) == Action("c", payload: .null, error: true))
        #expect(Effect(service: "s", op: "o").outcomeAction(.success(1)) == nil)
    }

    @Test("outcomes compare by value")
    func outcomes() {
        #expect(Outcome.success(1) == .success(1.0))
        #expect(Outcome.success(1) != .failure(1))
    }
}

@Suite("Route and Command")
struct RouteTests {
    static let forms: [(Route, String, String)] = [
        (.push("example/home"), "push", "{\"push\":\"example/home\"}"),
        (.push("example/home", args: ["user": 1]), "push", "{\"args\":{\"user\":1},\"push\":\"example/home\"}"),
        (.present("sheet", args: [:]), "present", "{\"args\":{},\"present\":\"sheet\"}"),
        (.replace("root"), "replace", "{\"replace\":\"root\"}"),
        (.pop(), "pop", "{\"pop\":true}"),
        (.pop(result: "done"), "pop", "{\"pop\":true,\"result\":\"done\"}"),
        (.dismiss(), "dismiss", "{\"dismiss\":true}"),
        (.dismiss(result: [1]), "dismiss", "{\"dismiss\":true,\"result\":[1]}"),
    ]

    @Test("JSON forms and kinds", arguments: forms)
    func jsonForm(route: Route, kind: String, text: String) {
        #expect(route.kind == kind)
        #expect(route.json.serialized() == text)
    }

    @Test("routes and commands are compared with ==")
    func equality() {
        #expect(Route.push("a", args: 1) == .push("a", args: 1.0))
        #expect(Route.push("a") != .present("a"))
        #expect(Route.pop() != .pop(result: .null))
        #expect(Command.route(.pop()) == .route(.pop()))
        #expect(Command.route(.pop()) != .effect(Effect(service: "s", op: "o")))
        #expect(Command.cancel("k") == .cancel("k"))
        #expect(Command.cancel("k") != .cancel("j"))
    }

    @Test("commands have a tagged JSON form")
    func commandJSON() {
        #expect(Command.route(.pop()).json == ["route": ["pop": true]])
        #expect(Command.cancel("search").json == ["cancel": "search"])
        #expect(Command.effect(Effect(service: "s", op: "o", then: "t")).json.serialized()
            == "{\"effect\":{\"args\":null,\"op\":\"o\",\"service\":\"s\",\"then\":\"t\"}}")
    }
}

@Suite("YaiaError")
struct YaiaErrorTests {
    @Test("JSON form and envelope")
    func envelope() {
        let error = YaiaError(.badPayload, "no", at: "/payload")
        #expect(error.json == ["code": "bad_payload", "message": "no", "at": "/payload"])
        #expect(error.envelope().serialized()
            == "{\"error\":{\"at\":\"/payload\",\"code\":\"bad_payload\",\"message\":\"no\"},\"ok\":false}")
        #expect(error.envelope(tag: ["n": 1]).serialized()
            == "{\"error\":{\"at\":\"/payload\",\"code\":\"bad_payload\",\"message\":\"no\"},\"ok\":false,\"tag\":{\"n\":1}}")
        // A null tag is still echoed.
        #expect(error.envelope(tag: .null)["tag"] == .some(.null))
        let unlocated = YaiaError(.internal, "oops")
        #expect(unlocated.json == ["code": "internal", "message": "oops"])
        #expect(unlocated.envelope() == ["ok": false, "error": ["code": "internal", "message": "oops"]])
    }

    @Test("nested(under:) prefixes the location")
    func nested() {
        let inner = YaiaError(.unknownAction, "x", at: "/type")
        #expect(inner.nested(under: "/action") == YaiaError(.unknownAction, "x", at: "/action/type"))
        #expect(inner.nested(under: "/a").nested(under: "/b").at == "/b/a/type")
        #expect(YaiaError(.badPayload, "y").nested(under: "/action").at == "/action")
        // Code and message are kept.
        #expect(inner.nested(under: "/p").code == .unknownAction)
        #expect(inner.nested(under: "/p").message == "x")
    }

    @Test("description names code, message and location")
    func description() {
        #expect(YaiaError(.badArgs, "m", at: "/email").description == "bad_args: m (at /email)")
        #expect(YaiaError(.badArgs, "m").description == "bad_args: m")
    }

    @Test("codes are the stable strings of the protocol")
    func codes() {
        let all: [(ErrorCode, String)] = [
            (.invalidJSON, "invalid_json"), (.notAnObject, "not_an_object"), (.nullArgument, "null_argument"),
            (.badHandle, "bad_handle"), (.unknownOp, "unknown_op"), (.badRequest, "bad_request"),
            (.badConfig, "bad_config"), (.unknownScene, "unknown_scene"), (.noSuchScene, "no_such_scene"),
            (.badArgs, "bad_args"), (.missingActionType, "missing_action_type"), (.unknownAction, "unknown_action"),
            (.badPayload, "bad_payload"), (.noSuchEffect, "no_such_effect"),
            (.effectAlreadyResolved, "effect_already_resolved"), (.effectNotPending, "effect_not_pending"),
            (.badService, "bad_service"), (.duplicateService, "duplicate_service"), (.badResult, "bad_result"),
            (.pluginNotFound, "plugin_not_found"), (.pluginNotLoadable, "plugin_not_loadable"),
            (.pluginNoEntry, "plugin_no_entry"), (.pluginABIMismatch, "plugin_abi_mismatch"),
            (.pluginInitFailed, "plugin_init_failed"), (.noSuchService, "no_such_service"),
            (.serviceFailed, "service_failed"), (.timeout, "timeout"), (.internal, "internal"),
        ]
        for (code, text) in all {
            #expect(code.rawValue == text)
            #expect(code.description == text)
        }
        #expect(Set(all.map(\.0)).count == all.count)
    }

    @Test("JSON Pointer tokens escape ~ and /")
    func pointers() {
        #expect(JSONPointer.token("plain") == "plain")
        #expect(JSONPointer.token("a/b~c") == "a~1b~0c")
        #expect(JSONPointer.token("~1") == "~01")
        #expect(JSONPointer.appending("/payload", "a/b") == "/payload/a~1b")
        #expect(JSONPointer.appending("/plugins", 3) == "/plugins/3")
        #expect(JSONPointer.appending("", "x") == "/x")
    }
}
