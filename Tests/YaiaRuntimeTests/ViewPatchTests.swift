import Foundation
import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
@testable import YaiaRuntime

/// Patch mode: updates carry `viewPatch` and `viewBase`, which turn the view
/// model a host holds into the one whole mode would have sent.
@Suite struct ViewPatchTests {
    let catalog = SceneCatalog(Examples.sceneTypes)

    func patchRuntime() throws -> Runtime {
        try Runtime(catalog: catalog, config: ["view": "patch"])
    }

    /// A host's copy of one scene's view model, kept by the rules of docs/abi.md.
    struct Held {
        var view: JSON
        var seq: Int64

        init(opened update: JSON) throws {
            view = try #require(update["viewModel"])
            seq = try #require(update["seq"]?.int64Value)
        }

        mutating func take(_ update: JSON) throws {
            #expect(update["viewModel"] == nil, "a patch-mode update carries no whole view model: \(update)")
            let base = try #require(update["viewBase"]?.int64Value)
            #expect(base == seq, "the patch starts from the view model held")
            view = try JSONPatch.apply(patch: try #require(update["viewPatch"]), to: view)
            seq = try #require(update["seq"]?.int64Value)
        }
    }

    func sendLogin(_ rt: Runtime, _ id: Int64, _ type: String, _ payload: JSON? = nil) throws -> JSON {
        try rt.send(scene: id, action: Action(type, payload: payload))
    }

    @Test func anUpdateCarriesThePatchFromTheLastViewModelSent() throws {
        let rt = try patchRuntime()
        defer { rt.shutDown() }
        let opened = try rt.open("example/login")
        #expect(opened["viewModel"] == LoginVM.initial)
        let id = try #require(opened["scene"]?.int64Value)
        var held = try Held(opened: opened)
        let typed = try sendLogin(rt, id, "emailChanged", "a@b.c")
        #expect(typed["viewBase"] == 0)
        #expect(typed["viewPatch"] == [["op": "replace", "path": "/email", "value": "a@b.c"]])
        try held.take(typed)
        try held.take(try sendLogin(rt, id, "passwordChanged", "pw"))
        #expect(held.view == LoginVM.filled)
        let submitted = try sendLogin(rt, id, "submit")
        try held.take(submitted)
        #expect(held.view == LoginVM.submitting)
        #expect(held.view == (try rt.state(scene: id))["viewModel"])
        // An outcome that asks for no reduction changes nothing: an empty patch.
        let effect = try #require(submitted["effects"]?.arrayValue?.first?["id"]?.int64Value)
        let resolved = try rt.resolve(effect: effect, outcome: .failure(["message": "no"]))
        try held.take(resolved)
        #expect(held.view == (try rt.state(scene: id))["viewModel"])
    }

    @Test func nothingChangedIsAnEmptyPatch() throws {
        let rt = try patchRuntime()
        defer { rt.shutDown() }
        let id = try #require(try rt.open("example/login")["scene"]?.int64Value)
        _ = try sendLogin(rt, id, "emailChanged", "a@b.c")
        let again = try sendLogin(rt, id, "emailChanged", "a@b.c")
        #expect(again["viewPatch"] == [])
        #expect(again["viewBase"] == 1)
        #expect(again["seq"] == 2)
    }

    @Test func wholeModeSendsTodaysUpdates() throws {
        let plain = Runtime(catalog: catalog)
        let whole = try Runtime(catalog: catalog, config: ["view": "whole"])
        let mixed = try patchRuntime()
        defer { plain.shutDown(); whole.shutDown(); mixed.shutDown() }
        var texts: [[String]] = []
        for (rt, open) in [(plain, #"{"op":"open","scene":"example/login"}"#), (whole, #"{"op":"open","scene":"example/login"}"#),
                           (mixed, #"{"op":"open","scene":"example/login","view":"whole"}"#)] {
            var list = [rt.run(open).serialized()]
            list.append(rt.run(#"{"op":"send","scene":1,"action":{"type":"emailChanged","payload":"a@b.c"}}"#).serialized())
            list.append(rt.run(#"{"op":"send","scene":1,"action":{"type":"submit"}}"#).serialized())
            texts.append(list)
        }
        #expect(texts[0] == texts[1])
        #expect(texts[0] == texts[2])
        #expect(texts[0][1].contains("\"viewModel\""))
    }

    @Test func oneSceneCanAskForPatchesInAWholeRuntime() throws {
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        let a = rt.run(#"{"op":"open","scene":"example/login","view":"patch"}"#)
        let b = rt.run(#"{"op":"open","scene":"example/login"}"#)
        #expect(a["viewModel"] == LoginVM.initial)
        let pa = rt.run(#"{"op":"send","scene":1,"action":{"type":"emailChanged","payload":"x"}}"#)
        let pb = rt.run(#"{"op":"send","scene":2,"action":{"type":"emailChanged","payload":"x"}}"#)
        #expect(pa["viewPatch"] != nil && pa["viewModel"] == nil)
        #expect(pb["viewModel"] != nil && pb["viewPatch"] == nil)
        #expect(b["ok"] == true)
        #expect(rt.run(#"{"op":"view","scene":1}"#)["view"] == "patch")
        #expect(rt.run(#"{"op":"view","scene":2}"#)["view"] == "whole")
    }

    @Test func aBadViewIsRefused() throws {
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        let error = envelopeError(rt.run(#"{"op":"open","scene":"example/login","view":"diff"}"#))
        #expect(error?["code"] == "bad_request")
        #expect(error?["at"] == "/view")
        #expect(envelopeError(rt.run(#"{"op":"start","scene":"example/login","view":1}"#))?["at"] == "/view")
        let config = yaiaError { () throws(YaiaError) in try Runtime(catalog: catalog, config: ["view": "patches"]) }
        #expect(config?.code == .badConfig)
        #expect(config?.at == "/view")
        #expect(envelopeError(rt.run(#"{"op":"view","scene":9}"#))?["code"] == "no_such_scene")
    }

    /// A host that missed updates asks for the view model; the next patch starts there.
    @Test func theViewOpGivesTheWholeViewModelAndTheNextPatchStartsThere() throws {
        let rt = try patchRuntime()
        defer { rt.shutDown() }
        let id = try #require(try rt.open("example/login")["scene"]?.int64Value)
        _ = try sendLogin(rt, id, "emailChanged", "a@b.c")
        _ = try sendLogin(rt, id, "passwordChanged", "pw")
        let view = rt.run(#"{"op":"view","scene":\#(id)}"#)
        #expect(view["viewModel"] == LoginVM.filled)
        #expect(view["seq"] == 2)
        #expect(view["view"] == "patch")
        var held = try Held(opened: view)
        try held.take(try sendLogin(rt, id, "submit"))
        #expect(held.view == LoginVM.submitting)
    }

    /// Outcomes from services come as events carrying patches.
    @Test func eventsCarryPatches() throws {
        let rt = try patchRuntime()
        defer { rt.shutDown() }
        let service = HostService("auth", .inline(#"{"user":{"email":"a@b.c"}}"#, failed: false))
        try service.register(in: rt)
        let opened = try rt.open("example/login")
        let id = try #require(opened["scene"]?.int64Value)
        var held = try Held(opened: opened)
        try held.take(try sendLogin(rt, id, "emailChanged", "a@b.c"))
        try held.take(try sendLogin(rt, id, "passwordChanged", "pw"))
        try held.take(try sendLogin(rt, id, "submit"))
        let event = try #require(rt.receive(timeout: 5))
        #expect(event["event"] == "update")
        try held.take(event)
        #expect(held.view == (try rt.state(scene: id))["viewModel"])
    }

    /// A flow started in patch mode: its root and the scenes its routes open.
    @Test func aFlowsScenesTakeItsMode() throws {
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        let started = rt.run(#"{"op":"start","scene":"example/login","view":"patch"}"#)
        let flow = try #require(started["flow"]?.int64Value)
        var held = try Held(opened: started)
        try held.take(try rt.send(flow: flow, action: Action("emailChanged", payload: "a@b.c")))
        try held.take(try rt.send(flow: flow, action: Action("passwordChanged", payload: "pw")))
        let submitted = try rt.send(flow: flow, action: Action("submit"))
        try held.take(submitted)
        let effect = try #require(submitted["effects"]?.arrayValue?.first?["id"]?.int64Value)
        let pushed = try rt.resolve(effect: effect, outcome: .success(["user": ["email": "a@b.c"]]))
        try held.take(pushed)
        let stack = try #require(pushed["stack"]?.arrayValue)
        #expect(stack.count == 2)
        // The pushed scene's first view model is in the stack; its next update is a patch.
        let top = try #require(stack.last)
        let home = try #require(top["id"]?.int64Value)
        #expect(rt.run(#"{"op":"view","scene":\#(home)}"#)["view"] == "patch")
        #expect(top["viewModel"] == (try rt.state(scene: home))["viewModel"])
        var homeHeld = try Held(opened: ["viewModel": try #require(top["viewModel"]), "seq": 0])
        try homeHeld.take(try rt.send(flow: flow, action: Action("load")))
        #expect(homeHeld.view == (try rt.state(scene: home))["viewModel"])
    }

    /// The restore's answer gives each patch-mode scene's view model and seq.
    @Test func aRestoreStartsPatchesAgainFromTheRestoredViewModels() throws {
        let rt = try Runtime(catalog: catalog, config: ["view": "patch", "allow": ["ops": ["snapshot", "restore"]]])
        defer { rt.shutDown() }
        let id = try #require(try rt.open("example/login")["scene"]?.int64Value)
        _ = try sendLogin(rt, id, "emailChanged", "a@b.c")
        let snapshot = try rt.snapshot()
        _ = try sendLogin(rt, id, "passwordChanged", "pw")
        let restored = try rt.restore(snapshot)
        let entry = try #require(restored["scenes"]?.arrayValue?.first)
        #expect(entry["seq"] == 1)
        var held = try Held(opened: entry)
        try held.take(try sendLogin(rt, id, "passwordChanged", "pw"))
        #expect(held.view == LoginVM.filled)
    }

    /// Journals record inputs: one recorded in patch mode replays identically.
    @Test func aJournalRecordedInPatchModeReplays() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("yaia-\(UUID().uuidString)-patch.jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rt = try patchRuntime()
        _ = try rt.startJournal(path: path)
        let id = try #require(try rt.open("example/login")["scene"]?.int64Value)
        _ = try sendLogin(rt, id, "emailChanged", "a@b.c")
        _ = try sendLogin(rt, id, "passwordChanged", "pw")
        let submitted = try sendLogin(rt, id, "submit")
        let effect = try #require(submitted["effects"]?.arrayValue?.first?["id"]?.int64Value)
        _ = try rt.resolve(effect: effect, outcome: .failure(["message": "no"]))
        _ = rt.stopJournal()
        rt.shutDown()
        let result = try Runtime.replay(path: path, catalog: Catalog(catalog))
        #expect(result["identical"] == true)
        #expect(result["inputs"] == 5)
    }
}
