import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
import YaiaRuntime

@Suite("Runtime: scenes through the Swift API")
struct RuntimeSceneTests {
    @Test("open answers with a scene update at seq 0")
    func open() throws {
        let rt = makeRuntime()
        let update = try rt.open("example/login")
        #expect(update == ["effects": [], "ok": true, "routes": [], "scene": 1, "seq": 0, "viewModel": LoginVM.initial])
        #expect(update.serialized()
            == "{\"effects\":[],\"ok\":true,\"routes\":[],\"scene\":1,\"seq\":0,\"viewModel\":{\"canSubmit\":false,\"email\":\"\",\"error\":null,\"isSubmitting\":false}}")
    }

    @Test("open passes its arguments to the scene")
    func openArgs() throws {
        let rt = makeRuntime()
        let update = try rt.open("example/login", args: ["email": "a@b.c"])
        #expect(update["viewModel"]?["email"] == "a@b.c")
        let state = try rt.state(scene: 1)
        #expect(try state["state"] == LoginState(args: ["email": "a@b.c"]).json)
    }

    @Test("open refuses unknown scene types and bad arguments")
    func openErrors() {
        let rt = makeRuntime()
        #expect(yaiaError { () throws(YaiaError) in try rt.open("example/nope") }?.code == .unknownScene)
        let bad = yaiaError { () throws(YaiaError) in try rt.open("example/login", args: ["email": 1]) }
        #expect(bad?.code == .badArgs)
        #expect(yaiaError { () throws(YaiaError) in try rt.open("example/feed", args: []) }?.code == .badArgs)
        // Nothing was opened.
        #expect(rt.sceneList()["scenes"] == [])
    }

    @Test("send reduces, counts seq and reports the view model")
    func send() throws {
        let rt = makeRuntime()
        _ = try rt.open("example/login")
        let first = try rt.send(scene: 1, action: Action("emailChanged", payload: "a@b.c"))
        #expect(first == ["effects": [], "ok": true, "routes": [], "scene": 1, "seq": 1,
                          "viewModel": ["canSubmit": false, "email": "a@b.c", "error": .null, "isSubmitting": false]])
        let second = try rt.send(scene: 1, action: Action("passwordChanged", payload: "hunter2"))
        #expect(second["seq"] == 2)
        #expect(second["viewModel"] == LoginVM.filled)
    }

    @Test("a refused action changes nothing, and the scene stays usable")
    func refusedAction() throws {
        let rt = makeRuntime()
        _ = try rt.open("example/login")
        let unknown = yaiaError { () throws(YaiaError) in try rt.send(scene: 1, action: Action("nope")) }
        #expect(unknown?.code == .unknownAction)
        #expect(unknown?.at == "/type")
        let payload = yaiaError { () throws(YaiaError) in try rt.send(scene: 1, action: Action("emailChanged", payload: 1)) }
        #expect(payload?.code == .badPayload)
        #expect(payload?.at == "/payload")
        let state = try rt.state(scene: 1)
        #expect(state["seq"] == 0)
        #expect(state["state"] == LoginState().json)
        #expect(try rt.send(scene: 1, action: Action("emailChanged", payload: "x"))["seq"] == 1)
    }

    @Test("state reports name, seq, state and view model")
    func state() throws {
        let rt = makeRuntime()
        _ = try rt.open("example/login")
        _ = try rt.send(scene: 1, action: Action("emailChanged", payload: "a@b.c"))
        let state = try rt.state(scene: 1)
        #expect(state == ["name": "example/login", "ok": true, "scene": 1, "seq": 1,
                          "state": ["email": "a@b.c", "error": .null, "isSubmitting": false, "password": "", "user": .null],
                          "viewModel": ["canSubmit": false, "email": "a@b.c", "error": .null, "isSubmitting": false]])
    }

    @Test("close removes the scene; later use gives no_such_scene")
    func close() throws {
        let rt = makeRuntime()
        _ = try rt.open("example/login")
        try rt.close(scene: 1)
        #expect(yaiaError { () throws(YaiaError) in try rt.state(scene: 1) }?.code == .noSuchScene)
        #expect(yaiaError { () throws(YaiaError) in try rt.send(scene: 1, action: Action("submit")) }?.code == .noSuchScene)
        #expect(yaiaError { () throws(YaiaError) in try rt.close(scene: 1) }?.code == .noSuchScene)
        #expect(yaiaError { () throws(YaiaError) in try rt.close(scene: 42) }?.code == .noSuchScene)
    }

    @Test("scenes lists types and open scenes in id order; ids are never reused")
    func sceneList() throws {
        let rt = makeRuntime()
        #expect(rt.sceneList() == ["documents": [], "flows": [], "ok": true, "packs": [], "scenes": [], "types": exampleTypes])
        let types = try #require(exampleTypes.arrayValue)
        #expect(types.contains("example/feed") && types.contains("example/login"))
        #expect(types.compactMap(\.stringValue) == types.compactMap(\.stringValue).sorted())
        _ = try rt.open("example/login")
        _ = try rt.open("example/feed")
        _ = try rt.open("example/login")
        _ = try rt.send(scene: 3, action: Action("submit"))
        try rt.close(scene: 2)
        #expect(rt.sceneList() == ["documents": [], "flows": [], "ok": true, "packs": [], "types": exampleTypes, "scenes": [
            ["id": 1, "name": "example/login", "seq": 0],
            ["id": 3, "name": "example/login", "seq": 1],
        ]])
        #expect(try rt.open("example/feed")["scene"] == 4)
    }

    @Test("scenes are independent")
    func independence() throws {
        let rt = makeRuntime()
        _ = try rt.open("example/login")
        _ = try rt.open("example/login")
        _ = try rt.send(scene: 1, action: Action("emailChanged", payload: "one@x"))
        _ = try rt.send(scene: 2, action: Action("emailChanged", payload: "two@x"))
        _ = try rt.send(scene: 2, action: Action("emailChanged", payload: "two@y"))
        #expect(try rt.state(scene: 1)["state"]?["email"] == "one@x")
        #expect(try rt.state(scene: 1)["seq"] == 1)
        #expect(try rt.state(scene: 2)["state"]?["email"] == "two@y")
        #expect(try rt.state(scene: 2)["seq"] == 2)
    }

    @Test("the same inputs give the same bytes")
    func deterministic() throws {
        func transcript() throws -> [[UInt8]] {
            let rt = makeRuntime()
            var out: [[UInt8]] = []
            out.append(try rt.open("example/login").serializedBytes())
            out.append(try rt.send(scene: 1, action: Action("emailChanged", payload: "a@b.c")).serializedBytes())
            out.append(try rt.send(scene: 1, action: Action("passwordChanged", payload: "pw")).serializedBytes())
            out.append(try rt.send(scene: 1, action: Action("submit")).serializedBytes())
            out.append(try rt.resolve(effect: 1, outcome: .failure(["message": "no"])).serializedBytes())
            out.append(try rt.state(scene: 1).serializedBytes())
            return out
        }
        #expect(try transcript() == transcript())
    }
}

@Suite("Runtime: pending effects")
struct RuntimePendingTests {
    /// A login scene submitted with no auth service registered: effect 1 is pending.
    static func submitted() throws -> (Runtime, JSON) {
        let rt = makeRuntime()
        _ = try rt.open("example/login")
        _ = try rt.send(scene: 1, action: Action("emailChanged", payload: "a@b.c"))
        _ = try rt.send(scene: 1, action: Action("passwordChanged", payload: "hunter2"))
        let update = try rt.send(scene: 1, action: Action("submit"))
        return (rt, update)
    }

    @Test("an effect without a service is pending")
    func pending() throws {
        let (_, update) = try Self.submitted()
        #expect(update == ["ok": true, "scene": 1, "seq": 3, "routes": [], "viewModel": LoginVM.submitting,
                           "effects": [["id": 1, "service": "auth", "op": "login", "args": loginArgs, "status": "pending"]]])
    }

    @Test("resolve with a result delivers the then action")
    func resolveResult() throws {
        let (rt, _) = try Self.submitted()
        let user: JSON = ["email": "a@b.c"]
        let update = try rt.resolve(effect: 1, outcome: .success(["user": user]))
        #expect(update == ["effects": [], "ok": true, "scene": 1, "seq": 4, "viewModel": LoginVM.filled,
                           "routes": [["push": "example/home", "args": ["user": user]]]])
        #expect(try rt.state(scene: 1)["state"]?["user"] == user)
    }

    @Test("resolve with an error delivers the catch action")
    func resolveError() throws {
        let (rt, _) = try Self.submitted()
        let update = try rt.resolve(effect: 1, outcome: .failure(["message": "Wrong password"]))
        #expect(update == ["effects": [], "ok": true, "routes": [], "scene": 1, "seq": 4,
                           "viewModel": ["canSubmit": true, "email": "a@b.c", "error": "Wrong password", "isSubmitting": false]])
    }

    @Test("an effect is resolved once")
    func resolveTwice() throws {
        let (rt, _) = try Self.submitted()
        _ = try rt.resolve(effect: 1, outcome: .success(["user": 1]))
        let again = yaiaError { () throws(YaiaError) in try rt.resolve(effect: 1, outcome: .success(["user": 1])) }
        #expect(again?.code == .effectAlreadyResolved)
        let other = yaiaError { () throws(YaiaError) in try rt.resolve(effect: 1, outcome: .failure("x")) }
        #expect(other?.code == .effectAlreadyResolved)
        #expect(try rt.state(scene: 1)["seq"] == 4)
    }

    @Test("unknown effect ids give no_such_effect", arguments: [Int64(2), 0, -1, 99, Int64.max])
    func unknownEffect(id: Int64) throws {
        let (rt, _) = try Self.submitted()
        #expect(yaiaError { () throws(YaiaError) in try rt.resolve(effect: id, outcome: .success(1)) }?.code == .noSuchEffect)
    }

    @Test("an outcome the scene refuses is an error; the effect stays pending")
    func refusedOutcome() throws {
        let (rt, _) = try Self.submitted()
        // loginSucceeded needs {"user": ...}.
        let refused = yaiaError { () throws(YaiaError) in try rt.resolve(effect: 1, outcome: .success(["nobody": 1])) }
        #expect(refused?.code == .badPayload)
        // loginFailed takes an object or a string, not a number.
        let refusedError = yaiaError { () throws(YaiaError) in try rt.resolve(effect: 1, outcome: .failure(5)) }
        #expect(refusedError?.code == .badPayload)
        // Nothing happened to the scene.
        let state = try rt.state(scene: 1)
        #expect(state["seq"] == 3)
        #expect(state["viewModel"] == LoginVM.submitting)
        // And a good outcome still goes through.
        let update = try rt.resolve(effect: 1, outcome: .success(["user": "me"]))
        #expect(update["seq"] == 4)
        #expect(update["routes"] == [["push": "example/home", "args": ["user": "me"]]])
    }

    @Test("closing a scene drops its pending effects")
    func closeDropsPending() throws {
        let (rt, _) = try Self.submitted()
        try rt.close(scene: 1)
        let error = yaiaError { () throws(YaiaError) in try rt.resolve(effect: 1, outcome: .success(["user": 1])) }
        #expect(error?.code == .effectAlreadyResolved)
    }

    @Test("effect ids are unique across the runtime's scenes")
    func uniqueIDs() throws {
        let rt = makeRuntime()
        for _ in 0..<3 { _ = try rt.open("example/feed") }
        var ids: [JSON] = []
        for scene in Int64(1)...3 {
            let update = try rt.send(scene: scene, action: Action("load"))
            let effects = try #require(update["effects"]?.arrayValue)
            #expect(effects.count == 1)
            #expect(effects.first?["args"] == [:])
            #expect(effects.first?["service"] == "feed")
            #expect(effects.first?["op"] == "fetch")
            ids.append(try #require(effects.first?["id"]))
        }
        #expect(ids == [1, 2, 3])
        // Each resolves into its own scene.
        _ = try rt.resolve(effect: 2, outcome: .success(["items": ["two"]]))
        #expect(try rt.state(scene: 2)["state"]?["items"] == ["two"])
        #expect(try rt.state(scene: 1)["state"]?["items"] == [])
        #expect(try rt.state(scene: 3)["state"]?["isLoading"] == true)
    }

    @Test("resolving does not touch the event queue")
    func noEvents() throws {
        let (rt, _) = try Self.submitted()
        _ = try rt.resolve(effect: 1, outcome: .success(["user": 1]))
        #expect(rt.receive(timeout: 0) == nil)
    }
}

@Suite("Runtime: configuration")
struct RuntimeConfigTests {
    @Test("usable configurations", arguments: [JSON.object([:]), ["plugins": []], ["workers": 1], ["workers": 256.0]])
    func good(config: JSON) throws {
        let rt = try Runtime(catalog: SceneCatalog(Examples.sceneTypes), config: config)
        #expect(try rt.open("example/feed")["ok"] == true)
        rt.shutDown()
    }

    static let bad: [(JSON, String?)] = [
        (["plugin": []], "/plugin"),
        (["plugins": [], "extra": 1], "/extra"),
        (["a/b": 1], "/a~1b"),
        (["plugins": "auth.so"], "/plugins"),
        (["plugins": ["x": 1]], "/plugins"),
        (["plugins": [5]], "/plugins/0"),
        (["plugins": [.null]], "/plugins/0"),
        (["plugins": [["config": [:]]]], "/plugins/0/path"),
        (["plugins": [["path": 5]]], "/plugins/0/path"),
        (["plugins": [["path": "/nonexistent/x.so", "config": []]]], "/plugins/0/config"),
        (["workers": 0], "/workers"),
        (["workers": 257], "/workers"),
        (["workers": 1.5], "/workers"),
        (["workers": "4"], "/workers"),
    ]

    @Test("unknown keys and wrong types give bad_config", arguments: bad)
    func badConfig(config: JSON, at: String?) {
        let error = yaiaError { () throws(YaiaError) in try Runtime(catalog: SceneCatalog(Examples.sceneTypes), config: config) }
        #expect(error?.code == .badConfig)
        #expect(error?.at == at)
    }

    @Test("a config that is not an object gives not_an_object", arguments: [JSON.array([]), "plugins", .null, 1])
    func notAnObject(config: JSON) {
        let error = yaiaError { () throws(YaiaError) in try Runtime(catalog: SceneCatalog(Examples.sceneTypes), config: config) }
        #expect(error?.code == .notAnObject)
    }

    @Test("a missing plugin fails the configuration")
    func missingPlugin() {
        let error = yaiaError { () throws(YaiaError) in
            try Runtime(catalog: SceneCatalog(Examples.sceneTypes), config: ["plugins": ["/nonexistent/yaia-test.so"]])
        }
        #expect(error?.code == .pluginNotFound)
    }
}
