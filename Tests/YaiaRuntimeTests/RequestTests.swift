import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
import YaiaRuntime

@Suite("Requests: the JSON protocol of execute")
struct RequestTests {
    @Test("a login session, request by request, with exact responses")
    func session() {
        let rt = makeRuntime()
        #expect(rt.run("{\"op\":\"open\",\"scene\":\"example/login\",\"args\":{}}").serialized()
            == "{\"effects\":[],\"ok\":true,\"routes\":[],\"scene\":1,\"seq\":0,\"viewModel\":{\"canSubmit\":false,\"email\":\"\",\"error\":null,\"isSubmitting\":false}}")
        #expect(rt.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}}").serialized()
            == "{\"effects\":[],\"ok\":true,\"routes\":[],\"scene\":1,\"seq\":1,\"viewModel\":{\"canSubmit\":false,\"email\":\"a@b.c\",\"error\":null,\"isSubmitting\":false}}")
        #expect(rt.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"passwordChanged\",\"payload\":\"hunter2\"}}")["seq"] == 2)
        #expect(rt.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"submit\"}}").serialized()
            == "{\"effects\":[{\"args\":{\"email\":\"a@b.c\",\"password\":\"hunter2\"},\"id\":1,\"op\":\"login\",\"service\":\"auth\",\"status\":\"pending\"}],\"ok\":true,\"routes\":[],\"scene\":1,\"seq\":3,\"viewModel\":{\"canSubmit\":false,\"email\":\"a@b.c\",\"error\":null,\"isSubmitting\":true}}")
        #expect(rt.run("{\"op\":\"resolve\",\"effect\":1,\"result\":{\"user\":{\"email\":\"a@b.c\"}}}").serialized()
            == "{\"effects\":[],\"ok\":true,\"routes\":[{\"args\":{\"user\":{\"email\":\"a@b.c\"}},\"push\":\"example/home\"}],\"scene\":1,\"seq\":4,\"viewModel\":{\"canSubmit\":true,\"email\":\"a@b.c\",\"error\":null,\"isSubmitting\":false}}")
        #expect(rt.run("{\"op\":\"state\",\"scene\":1}").serialized()
            == "{\"name\":\"example/login\",\"ok\":true,\"scene\":1,\"seq\":4,\"state\":{\"email\":\"a@b.c\",\"error\":null,\"isSubmitting\":false,\"password\":\"hunter2\",\"user\":{\"email\":\"a@b.c\"}},\"viewModel\":{\"canSubmit\":true,\"email\":\"a@b.c\",\"error\":null,\"isSubmitting\":false}}")
        #expect(rt.run("{\"op\":\"scenes\"}").serialized()
            == "{\"documents\":[],\"flows\":[],\"ok\":true,\"packs\":[],\"scenes\":[{\"id\":1,\"name\":\"example/login\",\"seq\":4}],\"types\":\(exampleTypes.serialized())}")
        #expect(rt.run("{\"op\":\"close\",\"scene\":1}").serialized() == "{\"closed\":true,\"ok\":true,\"scene\":1}")
        #expect(rt.run("{\"op\":\"scenes\"}").serialized() == "{\"documents\":[],\"flows\":[],\"ok\":true,\"packs\":[],\"scenes\":[],\"types\":\(exampleTypes.serialized())}")
    }

    @Test("resolve with an error delivers the catch action")
    func resolveError() {
        let rt = makeRuntime()
        _ = rt.run("{\"op\":\"open\",\"scene\":\"example/feed\"}")
        #expect(rt.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"load\"}}")["effects"]
            == [["args": [:], "id": 1, "op": "fetch", "service": "feed", "status": "pending"]])
        let update = rt.run("{\"op\":\"resolve\",\"effect\":1,\"error\":{\"message\":\"offline\"}}")
        #expect(update == ["effects": [], "ok": true, "routes": [], "scene": 1, "seq": 2,
                           "viewModel": ["error": "offline", "isLoading": false, "items": []]])
    }

    @Test("the Swift API and execute give the same responses")
    func sameAsSwiftAPI() throws {
        let a = makeRuntime()
        let b = makeRuntime()
        #expect(try a.open("example/feed") == b.run("{\"op\":\"open\",\"scene\":\"example/feed\"}"))
        #expect(try a.send(scene: 1, action: Action("load")) == b.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"load\"}}"))
        #expect(try a.resolve(effect: 1, outcome: .success(["items": [1]]))
            == b.run("{\"op\":\"resolve\",\"effect\":1,\"result\":{\"items\":[1]}}"))
        #expect(try a.state(scene: 1) == b.run("{\"op\":\"state\",\"scene\":1}"))
        #expect(a.sceneList() == b.run("{\"op\":\"scenes\"}"))
        #expect(a.serviceList() == b.run("{\"op\":\"services\"}"))
    }

    @Test("whole-number ids may be written as doubles")
    func wholeDoubles() {
        let rt = makeRuntime()
        _ = rt.run("{\"op\":\"open\",\"scene\":\"example/feed\"}")
        #expect(rt.run("{\"op\":\"state\",\"scene\":1.0}")["ok"] == true)
        #expect(rt.run("{\"op\":\"state\",\"scene\":1e0}")["scene"] == 1)
        _ = rt.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"load\"}}")
        #expect(rt.run("{\"op\":\"resolve\",\"effect\":1.0,\"result\":{\"items\":[]}}")["seq"] == 2)
    }

    @Test("services: empty list")
    func services() {
        #expect(makeRuntime().run("{\"op\":\"services\"}") == ["ok": true, "services": []])
    }

    @Test("an action's FSA fields pass through to the scene")
    func fsaFields() {
        let rt = makeRuntime()
        _ = rt.run("{\"op\":\"open\",\"scene\":\"example/login\"}")
        let update = rt.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"loginFailed\",\"payload\":{\"message\":\"m\"},\"error\":true,\"meta\":{\"k\":1}}}")
        #expect(update["viewModel"]?["error"] == "m")
    }
}

@Suite("Requests: tags")
struct RequestTagTests {
    static let tags: [JSON] = ["t-1", 7, 2.5, .null, true, [], ["id": [1, "x"]]]

    @Test("echoed on success", arguments: tags)
    func onSuccess(tag: JSON) {
        let rt = makeRuntime()
        let tagText = tag.serialized()
        let opened = rt.run("{\"op\":\"open\",\"scene\":\"example/login\",\"tag\":\(tagText)}")
        #expect(opened["ok"] == true)
        #expect(opened["tag"] == .some(tag))
        #expect(rt.run("{\"tag\":\(tagText),\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"submit\"}}")["tag"] == .some(tag))
        #expect(rt.run("{\"op\":\"state\",\"scene\":1,\"tag\":\(tagText)}")["tag"] == .some(tag))
        #expect(rt.run("{\"op\":\"scenes\",\"tag\":\(tagText)}")["tag"] == .some(tag))
        #expect(rt.run("{\"op\":\"services\",\"tag\":\(tagText)}")["tag"] == .some(tag))
        #expect(rt.run("{\"op\":\"close\",\"scene\":1,\"tag\":\(tagText)}")
            == ["closed": true, "ok": true, "scene": 1, "tag": tag])
    }

    @Test("echoed on error", arguments: tags)
    func onError(tag: JSON) {
        let rt = makeRuntime()
        let tagText = tag.serialized()
        for request in [
            "{\"op\":\"nope\",\"tag\":\(tagText)}",
            "{\"tag\":\(tagText)}",
            "{\"op\":\"state\",\"scene\":5,\"tag\":\(tagText)}",
            "{\"op\":\"send\",\"scene\":5,\"action\":{},\"tag\":\(tagText)}",
            "{\"op\":\"resolve\",\"effect\":5,\"result\":1,\"tag\":\(tagText)}",
        ] {
            let response = rt.run(request)
            #expect(response["ok"] == false)
            #expect(response["tag"] == .some(tag), "\(request)")
            #expect(response["error"]?["code"] != nil)
        }
    }

    @Test("absent when the request is not an object")
    func unparsable() {
        let rt = makeRuntime()
        let broken = rt.run("{\"op\":\"scenes\",\"tag\":1")
        #expect(broken["error"]?["code"] == "invalid_json")
        #expect(broken["tag"] == nil)
        let array = rt.run("[{\"tag\":1}]")
        #expect(array["error"]?["code"] == "not_an_object")
        #expect(array["tag"] == nil)
        // No tag given: none in the response.
        #expect(rt.run("{\"op\":\"scenes\"}")["tag"] == nil)
    }
}

/// One request that must fail, with the code and location it must fail with.
struct BadRequest: Sendable, CustomTestStringConvertible {
    let request: String
    let code: String
    let at: String?
    var testDescription: String { request }

    init(_ request: String, _ code: String, at: String? = nil) {
        self.request = request
        self.code = code
        self.at = at
    }
}

@Suite("Requests: error codes")
struct RequestErrorTests {
    static let cases: [BadRequest] = [
        // The request itself.
        BadRequest("{", "invalid_json"),
        BadRequest("", "invalid_json"),
        BadRequest("{\"op\":\"scenes\"} x", "invalid_json"),
        BadRequest("[]", "not_an_object"),
        BadRequest("\"open\"", "not_an_object"),
        BadRequest("null", "not_an_object"),
        BadRequest("{}", "bad_request", at: "/op"),
        BadRequest("{\"op\":5}", "bad_request", at: "/op"),
        BadRequest("{\"op\":null}", "bad_request", at: "/op"),
        BadRequest("{\"op\":\"nope\"}", "unknown_op", at: "/op"),
        BadRequest("{\"op\":\"Open\"}", "unknown_op", at: "/op"),
        // open
        BadRequest("{\"op\":\"open\"}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"open\",\"scene\":1}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"open\",\"scene\":\"example/nope\"}", "unknown_scene"),
        BadRequest("{\"op\":\"open\",\"scene\":\"example/login\",\"args\":[]}", "not_an_object", at: "/args"),
        BadRequest("{\"op\":\"open\",\"scene\":\"example/login\",\"args\":\"a@b.c\"}", "not_an_object", at: "/args"),
        // send (scene 1 is an open example/login)
        BadRequest("{\"op\":\"send\",\"scene\":1}", "bad_request", at: "/action"),
        BadRequest("{\"op\":\"send\",\"scene\":1,\"action\":5}", "not_an_object", at: "/action"),
        BadRequest("{\"op\":\"send\",\"scene\":1,\"action\":\"submit\"}", "not_an_object", at: "/action"),
        BadRequest("{\"op\":\"send\",\"scene\":1,\"action\":{}}", "missing_action_type", at: "/action/type"),
        BadRequest("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":5}}", "missing_action_type", at: "/action/type"),
        BadRequest("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"nope\"}}", "unknown_action", at: "/action/type"),
        BadRequest("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"emailChanged\",\"payload\":5}}", "bad_payload", at: "/action/payload"),
        BadRequest("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"emailChanged\"}}", "bad_payload", at: "/action/payload"),
        BadRequest("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"loginSucceeded\",\"payload\":{}}}", "bad_payload", at: "/action/payload/user"),
        BadRequest("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"submit\",\"error\":\"yes\"}}", "bad_payload", at: "/action/error"),
        BadRequest("{\"op\":\"send\",\"scene\":99,\"action\":{\"type\":\"submit\"}}", "no_such_scene"),
        BadRequest("{\"op\":\"send\",\"action\":{\"type\":\"submit\"}}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"send\",\"scene\":\"1\",\"action\":{\"type\":\"submit\"}}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"send\",\"scene\":1.5,\"action\":{\"type\":\"submit\"}}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"send\",\"scene\":1.5,\"action\":{}}", "bad_request", at: "/scene"),
        // state / close
        BadRequest("{\"op\":\"state\"}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"state\",\"scene\":\"1\"}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"state\",\"scene\":1.5}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"state\",\"scene\":null}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"state\",\"scene\":1e300}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"state\",\"scene\":18446744073709551615}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"state\",\"scene\":2}", "no_such_scene"),
        BadRequest("{\"op\":\"state\",\"scene\":-1}", "no_such_scene"),
        BadRequest("{\"op\":\"close\"}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"close\",\"scene\":true}", "bad_request", at: "/scene"),
        BadRequest("{\"op\":\"close\",\"scene\":2}", "no_such_scene"),
        // resolve
        BadRequest("{\"op\":\"resolve\",\"result\":1}", "bad_request", at: "/effect"),
        BadRequest("{\"op\":\"resolve\",\"effect\":\"1\",\"result\":1}", "bad_request", at: "/effect"),
        BadRequest("{\"op\":\"resolve\",\"effect\":0.5,\"result\":1}", "bad_request", at: "/effect"),
        BadRequest("{\"op\":\"resolve\",\"effect\":1}", "bad_request"),
        BadRequest("{\"op\":\"resolve\",\"effect\":1,\"result\":1,\"error\":1}", "bad_request"),
        BadRequest("{\"op\":\"resolve\",\"effect\":1,\"result\":1}", "no_such_effect"),
        BadRequest("{\"op\":\"resolve\",\"effect\":-3,\"error\":{}}", "no_such_effect"),
        // load_plugin
        BadRequest("{\"op\":\"load_plugin\"}", "bad_request", at: "/path"),
        BadRequest("{\"op\":\"load_plugin\",\"path\":7}", "bad_request", at: "/path"),
        BadRequest("{\"op\":\"load_plugin\",\"path\":\"x.so\",\"config\":[]}", "not_an_object", at: "/config"),
        // A file a request names is opened as the request's: its faults point at the path.
        BadRequest("{\"op\":\"load_plugin\",\"path\":\"/nonexistent/yaia-test-plugin.so\"}", "plugin_not_found", at: "/path"),
    ]

    @Test("each bad request gets its code and location; the runtime stays usable", arguments: cases)
    func badRequest(_ c: BadRequest) throws {
        let rt = makeRuntime(grants: .all)
        _ = rt.run("{\"op\":\"open\",\"scene\":\"example/login\"}")
        let response = rt.run(c.request)
        #expect(response["ok"] == false)
        let error = try #require(response["error"]?.objectValue)
        #expect(error["code"] == .string(c.code))
        #expect(error["at"] == c.at.map(JSON.string))
        #expect(error["message"]?.stringValue?.isEmpty == false)
        // Nothing else in an envelope.
        #expect(response.objectValue?.keys == ["error", "ok"])
        // Nothing changed; the runtime answers the next request.
        #expect(rt.run("{\"op\":\"state\",\"scene\":1}")["seq"] == 0)
        #expect(rt.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"submit\"}}")["seq"] == 1)
    }

    @Test("open: bad arguments are located inside /args")
    func openArgsLocation() {
        let rt = makeRuntime()
        let error = rt.run("{\"op\":\"open\",\"scene\":\"example/login\",\"args\":{\"email\":5}}")["error"]
        #expect(error?["code"] == "bad_args")
        // docs/abi.md: "at" is a JSON Pointer into the request. The scene's
        // "/email" is not nested under "/args".
        #expect(error?["at"] == "/args/email")
        
    }

    @Test("resolve: a refused outcome is located inside /result or /error")
    func resolveLocation() {
        let rt = makeRuntime()
        _ = rt.run("{\"op\":\"open\",\"scene\":\"example/login\",\"args\":{\"email\":\"a@b.c\"}}")
        _ = rt.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"passwordChanged\",\"payload\":\"p\"}}")
        _ = rt.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"submit\"}}")
        let result = rt.run("{\"op\":\"resolve\",\"effect\":1,\"result\":{}}")["error"]
        let error = rt.run("{\"op\":\"resolve\",\"effect\":1,\"error\":5}")["error"]
        #expect(result?["code"] == "bad_payload")
        #expect(error?["code"] == "bad_payload")
        // docs/abi.md: "at" is a JSON Pointer into the request; the scene's
        // "/payload/user" and "/payload" are passed through unchanged.
        #expect(result?["at"] == "/result/user")
        #expect(error?["at"] == "/error")
        
        // Still pending: a good outcome goes through.
        #expect(rt.run("{\"op\":\"resolve\",\"effect\":1,\"result\":{\"user\":1}}")["seq"] == 3)
    }

    @Test("a refused resolve keeps the effect pending; then a good one works")
    func refusedResolve() {
        let rt = makeRuntime()
        _ = rt.run("{\"op\":\"open\",\"scene\":\"example/feed\"}")
        _ = rt.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"load\"}}")
        #expect(rt.run("{\"op\":\"resolve\",\"effect\":1,\"result\":{\"items\":5}}")["error"]?["code"] == "bad_payload")
        #expect(rt.run("{\"op\":\"resolve\",\"effect\":1,\"result\":[]}")["error"]?["code"] == "bad_payload")
        #expect(rt.run("{\"op\":\"state\",\"scene\":1}")["seq"] == 1)
        #expect(rt.run("{\"op\":\"resolve\",\"effect\":1,\"result\":{\"items\":[\"a\"]}}")["viewModel"]?["items"] == ["a"])
        #expect(rt.run("{\"op\":\"resolve\",\"effect\":1,\"result\":{\"items\":[]}}")["error"]?["code"] == "effect_already_resolved")
    }

    @Test("closing a scene drops its pending effects")
    func closeDrops() {
        let rt = makeRuntime()
        _ = rt.run("{\"op\":\"open\",\"scene\":\"example/feed\"}")
        _ = rt.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"load\"}}")
        _ = rt.run("{\"op\":\"close\",\"scene\":1}")
        #expect(rt.run("{\"op\":\"resolve\",\"effect\":1,\"result\":{\"items\":[]}}")["error"]?["code"] == "effect_already_resolved")
        #expect(rt.run("{\"op\":\"resolve\",\"effect\":2,\"result\":{\"items\":[]}}")["error"]?["code"] == "no_such_effect")
    }
}
