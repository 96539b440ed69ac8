import CYaia
import Foundation
import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
@testable import YaiaRuntime

/// Opens a login scene, fills it in and submits it: effect 1 goes to the auth service.
func submitLogin(_ rt: Runtime) throws -> JSON {
    _ = try rt.open("example/login")
    _ = try rt.send(scene: 1, action: Action("emailChanged", payload: "a@b.c"))
    _ = try rt.send(scene: 1, action: Action("passwordChanged", payload: "hunter2"))
    return try rt.send(scene: 1, action: Action("submit"))
}

let successEvent: JSON = [
    "effect": 1, "effects": [], "event": "update", "ok": true, "scene": 1, "seq": 4,
    "routes": [["args": ["user": ["email": "a@b.c"]], "push": "example/home"]],
    "viewModel": ["canSubmit": true, "email": "a@b.c", "error": .null, "isSubmitting": false],
]

@Suite("Services: host services from a C yaia_service")
struct HostServiceTests {
    @Test("registered and listed")
    func listed() throws {
        let rt = makeRuntime()
        let auth = HostService("auth", .hold)
        let feed = HostService("feed", .hold)
        try feed.register(in: rt)
        try auth.register(in: rt)
        #expect(rt.serviceList() == ["ok": true, "services": [["blocking": false, "name": "auth", "origin": "host"], ["blocking": false, "name": "feed", "origin": "host"]]])
        #expect(rt.run("{\"op\":\"services\"}") == rt.serviceList())
    }

    @Test("a service completing inside perform: running effect, update event")
    func inlineCompletion() throws {
        let rt = makeRuntime()
        let auth = HostService("auth", .inline("{\"user\":{\"email\":\"a@b.c\"}}", failed: false))
        try auth.register(in: rt)
        let update = try submitLogin(rt)
        // The response to send shows the effect as running.
        #expect(update == ["ok": true, "scene": 1, "seq": 3, "routes": [], "viewModel": LoginVM.submitting,
                           "effects": [["id": 1, "service": "auth", "op": "login", "args": loginArgs, "status": "running"]]])
        // perform got the op and the args as canonical JSON text.
        #expect(auth.performed.value == [.init(op: "login", args: "{\"email\":\"a@b.c\",\"password\":\"hunter2\"}")])
        #expect(auth.completionCodes.value == [YAIA_OK])
        let event = try #require(nextEvent(rt))
        #expect(event == successEvent)
        #expect(event.serialized()
            == "{\"effect\":1,\"effects\":[],\"event\":\"update\",\"ok\":true,\"routes\":[{\"args\":{\"user\":{\"email\":\"a@b.c\"}},\"push\":\"example/home\"}],\"scene\":1,\"seq\":4,\"viewModel\":{\"canSubmit\":true,\"email\":\"a@b.c\",\"error\":null,\"isSubmitting\":false}}")
        #expect(try rt.state(scene: 1)["state"]?["user"] == ["email": "a@b.c"])
        // One event per outcome.
        #expect(rt.receive(timeout: 0) == nil)
    }

    @Test("a service completing from another thread")
    func threadCompletion() throws {
        let rt = makeRuntime()
        let auth = HostService("auth", .thread("{\"user\":{\"email\":\"a@b.c\"}}", failed: false))
        try auth.register(in: rt)
        let update = try submitLogin(rt)
        #expect(update["effects"]?.arrayValue?.first?["status"] == "running")
        let event = try #require(nextEvent(rt))
        #expect(event == successEvent)
        #expect(try rt.state(scene: 1)["seq"] == 4)
    }

    @Test("a service failing the call delivers the catch action", arguments: [false, true])
    func failure(onThread: Bool) throws {
        let rt = makeRuntime()
        let text = "{\"message\":\"denied\"}"
        let auth = HostService("auth", onThread ? .thread(text, failed: true) : .inline(text, failed: true))
        try auth.register(in: rt)
        _ = try submitLogin(rt)
        let event = try #require(nextEvent(rt))
        #expect(event == ["effect": 1, "effects": [], "event": "update", "ok": true, "routes": [], "scene": 1, "seq": 4,
                          "viewModel": ["canSubmit": true, "email": "a@b.c", "error": "denied", "isSubmitting": false]])
    }

    @Test("completing with text that is not JSON fails the call with bad_result")
    func badResult() throws {
        let rt = makeProbeRuntime()
        let svc = HostService("svc", .inline("{not json", failed: false))
        try svc.register(in: rt)
        _ = try rt.open("test/probe")
        _ = try rt.send(scene: 1, action: Action("call", payload: ["service": "svc", "op": "go", "then": "done", "catch": "failed"]))
        #expect(svc.completionCodes.value == [YAIA_ERR_JSON])
        let event = try #require(nextEvent(rt))
        #expect(event["event"] == "update")
        #expect(event["effect"] == 1)
        // The catch action arrived, flagged as an error, with code bad_result.
        let last = try #require(event["viewModel"]?["last"])
        #expect(last["type"] == "failed")
        #expect(last["error"] == true)
        #expect(last["payload"]?["code"] == "bad_result")
        #expect(last["payload"]?["message"]?.stringValue?.contains("invalid JSON") == true)
        #expect(last["payload"]?.objectValue?.keys == ["code", "message"])
    }

    @Test("outcomes arrive as FSA actions: then with the result, catch with the error and error: true",
          arguments: [false, true])
    func outcomeActions(failed: Bool) throws {
        let rt = makeProbeRuntime()
        let svc = HostService("svc", .inline("{\"z\":1,\"a\":[1.0,\"x\"]}", failed: failed))
        try svc.register(in: rt)
        _ = try rt.open("test/probe")
        _ = try rt.send(scene: 1, action: Action("call", payload: ["service": "svc", "op": "go", "then": "done", "catch": "failed"]))
        let last = try #require(nextEvent(rt)?["viewModel"]?["last"])
        if failed {
            #expect(last == ["type": "failed", "payload": ["a": [1, "x"], "z": 1], "error": true])
        } else {
            #expect(last == ["type": "done", "payload": ["a": [1, "x"], "z": 1]])
        }
    }

    @Test("perform receives the args as canonical JSON text, and null when there are none")
    func canonicalArgs() throws {
        let rt = makeProbeRuntime()
        let svc = HostService("svc", .hold)
        try svc.register(in: rt)
        _ = try rt.open("test/probe")
        _ = try rt.send(scene: 1, action: Action("call", payload: ["service": "svc", "op": "a", "args": ["b": 1.0, "a": ["é": "\n"]]]))
        _ = try rt.send(scene: 1, action: Action("call", payload: ["service": "svc", "op": "b"]))
        #expect(svc.performed.value == [.init(op: "a", args: "{\"a\":{\"é\":\"\\n\"},\"b\":1}"), .init(op: "b", args: "null")])
    }

    @Test("an outcome the effect asked no action for is dropped")
    func droppedOutcome() throws {
        let rt = makeProbeRuntime()
        let svc = HostService("svc", .hold)
        try svc.register(in: rt)
        _ = try rt.open("test/probe")
        _ = try rt.send(scene: 1, action: Action("call", payload: ["service": "svc", "op": "a", "then": "done"]))
        #expect(svc.complete(0, "{\"message\":\"no\"}", failed: true) == YAIA_OK)
        #expect(rt.receive(timeout: 0) == nil)
        #expect(try rt.state(scene: 1)["seq"] == 1)
    }

    @Test("a call completes once; later completions are stale")
    func completeOnce() throws {
        let rt = makeRuntime()
        let auth = HostService("auth", .hold)
        try auth.register(in: rt)
        _ = try submitLogin(rt)
        #expect(auth.complete(0, "{\"user\":{\"email\":\"a@b.c\"}}") == YAIA_OK)
        #expect(auth.complete(0, "{\"user\":2}") == YAIA_ERR_STALE)
        #expect(auth.complete(0, "{\"message\":\"x\"}", failed: true) == YAIA_ERR_STALE)
        #expect(try #require(nextEvent(rt)) == successEvent)
        #expect(rt.receive(timeout: 0) == nil)
        #expect(try rt.state(scene: 1)["seq"] == 4)
    }

    @Test("completing with NULL arguments or a made-up call")
    func badCompletions() throws {
        let rt = makeRuntime()
        let auth = HostService("auth", .hold)
        try auth.register(in: rt)
        _ = try submitLogin(rt)
        let call = OpaquePointer(bitPattern: auth.calls.value[0])
        #expect(completeCall(nil, "{}", failed: false) == YAIA_ERR_ARGUMENT)
        #expect(completeCall(call, nil, failed: false) == YAIA_ERR_ARGUMENT)
        #expect(completeCall(OpaquePointer(bitPattern: 0xDEAD_BEE0), "{}", failed: false) == YAIA_ERR_STALE)
        // The real call is still live.
        #expect(auth.complete(0, "{\"user\":{\"email\":\"a@b.c\"}}") == YAIA_OK)
        #expect(try #require(nextEvent(rt)) == successEvent)
    }

    @Test("an outcome the scene refuses is an error event; the scene is unchanged")
    func refusedOutcome() throws {
        let rt = makeRuntime()
        let auth = HostService("auth", .inline("{\"nobody\":1}", failed: false))
        try auth.register(in: rt)
        _ = try submitLogin(rt)
        let event = try #require(nextEvent(rt))
        #expect(event["ok"] == false)
        #expect(event["event"] == "error")
        #expect(event["effect"] == 1)
        #expect(event["scene"] == 1)
        #expect(event["error"]?["code"] == "bad_payload")
        #expect(event["error"]?["at"] == "/action/payload/user")
        #expect(event.objectValue?.keys == ["effect", "error", "event", "ok", "scene"])
        let state = try rt.state(scene: 1)
        #expect(state["seq"] == 3)
        #expect(state["viewModel"] == LoginVM.submitting)
    }

    @Test("a running effect cannot be resolved by the host")
    func notPending() throws {
        let rt = makeRuntime()
        let auth = HostService("auth", .hold)
        try auth.register(in: rt)
        _ = try submitLogin(rt)
        let error = yaiaError { () throws(YaiaError) in try rt.resolve(effect: 1, outcome: .success(["user": 1])) }
        #expect(error?.code == .effectNotPending)
        #expect(rt.run("{\"op\":\"resolve\",\"effect\":1,\"result\":{\"user\":1}}")["error"]?["code"] == "effect_not_pending")
        // The service still can.
        #expect(auth.complete(0, "{\"user\":{\"email\":\"a@b.c\"}}") == YAIA_OK)
        #expect(try #require(nextEvent(rt)) == successEvent)
    }

    @Test("closing a scene cancels its running calls; their outcomes are dropped")
    func closeCancels() throws {
        let rt = makeRuntime()
        let auth = HostService("auth", .hold)
        try auth.register(in: rt)
        _ = try submitLogin(rt)
        try rt.close(scene: 1)
        #expect(auth.cancelled.value == auth.calls.value)
        #expect(auth.cancelled.value.count == 1)
        #expect(auth.complete(0, "{\"user\":1}") == YAIA_ERR_STALE)
        #expect(rt.receive(timeout: 0) == nil)
        #expect(rt.run("{\"op\":\"resolve\",\"effect\":1,\"result\":{\"user\":1}}")["error"]?["code"] == "effect_already_resolved")
    }

    @Test("only the effects named after a service go to it")
    func routing() throws {
        let rt = makeRuntime()
        let feed = HostService("feed", .inline("{\"items\":[1,2]}", failed: false))
        try feed.register(in: rt)
        _ = try rt.open("example/login", args: ["email": "a@b.c"])
        _ = try rt.open("example/feed")
        _ = try rt.send(scene: 1, action: Action("passwordChanged", payload: "p"))
        let login = try rt.send(scene: 1, action: Action("submit"))
        #expect(login["effects"]?.arrayValue?.first?["status"] == "pending")
        let load = try rt.send(scene: 2, action: Action("load"))
        #expect(load["effects"]?.arrayValue?.first?["status"] == "running")
        #expect(load["effects"]?.arrayValue?.first?["id"] == 2)
        let event = try #require(nextEvent(rt))
        #expect(event == ["effect": 2, "effects": [], "event": "update", "ok": true, "routes": [], "scene": 2, "seq": 2,
                          "viewModel": ["error": .null, "isLoading": false, "items": [1, 2]]])
        #expect(feed.performed.value == [.init(op: "fetch", args: "{}")])
    }

    @Test("duplicate names are refused")
    func duplicate() throws {
        let rt = makeRuntime()
        try HostService("auth", .hold).register(in: rt)
        do {
            try HostService("auth", .hold).register(in: rt)
            Issue.record("a second service named auth was accepted")
        } catch let error as YaiaError {
            #expect(error.code == .duplicateService)
        }
        #expect(rt.serviceList()["services"]?.arrayValue?.count == 1)
    }

    static let badNames = ["", "has space", "a/b", "é", String(repeating: "x", count: 65)]

    @Test("bad names are refused with bad_service", arguments: badNames)
    func badName(name: String) {
        let service = HostService(name, .hold)
        var s = service.cStruct()
        let error = withUnsafePointer(to: &s) { p in yaiaError { () throws(YaiaError) in try LiveService(p, origin: .host) } }
        #expect(error?.code == .badService)
    }

    @Test("names of 1 to 64 characters of [A-Za-z0-9_.-] are accepted",
          arguments: ["a", "auth", "A-Z_a.z-0.9", String(repeating: "x", count: 64)])
    func goodName(name: String) throws {
        let rt = makeRuntime()
        try HostService(name, .hold).register(in: rt)
        #expect(rt.serviceList()["services"] == [["blocking": false, "name": .string(name), "origin": "host"]])
    }

    @Test("malformed structs are refused with bad_service")
    func badStructs() {
        let service = HostService("auth", .hold)
        #expect(yaiaError { () throws(YaiaError) in try LiveService(nil, origin: .host) }?.code == .badService)
        var small = service.cStruct(size: MemoryLayout<Int>.size)
        #expect(withUnsafePointer(to: &small) { p in yaiaError { () throws(YaiaError) in try LiveService(p, origin: .host) } }?.code == .badService)
        var noPerform = service.cStruct(withPerform: false)
        #expect(withUnsafePointer(to: &noPerform) { p in yaiaError { () throws(YaiaError) in try LiveService(p, origin: .host) } }?.code == .badService)
        var noName = service.cStruct()
        noName.name = nil
        #expect(withUnsafePointer(to: &noName) { p in yaiaError { () throws(YaiaError) in try LiveService(p, origin: .host) } }?.code == .badService)
    }
}

@Suite("Runtime: shutting down")
struct ShutDownTests {
    @Test("shutDown wakes a receive that waits without limit", arguments: [-1, -Double.infinity, .infinity, 1e300])
    func wakesReceiver(timeout: Double) {
        let rt = makeRuntime()
        let started = DispatchSemaphore(value: 0)
        let receiver = receiveOnThread(rt, timeout: timeout, started: started)
        started.wait()
        // Shut down only once the receiver is blocked: that is the case under test.
        while rt.receiversBlocked == 0 { sched_yield() }
        rt.shutDown()
        #expect(receiver() == .some(nil), "receive did not return nil after shutDown")
        // Later receives return at once, even those without limit.
        #expect(receiveOnThread(rt, timeout: timeout)() == .some(nil))
    }

    @Test("shutDown releases every service once and closes the scenes")
    func releases() throws {
        let rt = makeRuntime()
        let auth = HostService("auth", .hold)
        let feed = HostService("feed", .hold)
        try auth.register(in: rt)
        try feed.register(in: rt)
        _ = try submitLogin(rt)
        rt.shutDown()
        #expect(auth.releases.value == 1)
        #expect(feed.releases.value == 1)
        // The running call was cancelled, and completing it now is harmless.
        #expect(auth.cancelled.value == auth.calls.value)
        #expect(auth.complete(0, "{\"user\":1}") == YAIA_ERR_STALE)
        #expect(receiveOnThread(rt, timeout: -1)() == .some(nil))
        // A second shutDown does nothing.
        rt.shutDown()
        #expect(auth.releases.value == 1)
        // The runtime refuses new work with an error, not a crash.
        #expect(yaiaError { () throws(YaiaError) in try rt.open("example/login") }?.code == .badHandle)
        #expect(yaiaError { () throws(YaiaError) in try rt.state(scene: 1) }?.code == .noSuchScene)
        #expect(rt.run("{\"op\":\"open\",\"scene\":\"example/feed\"}")["error"]?["code"] == "bad_handle")
    }
}
