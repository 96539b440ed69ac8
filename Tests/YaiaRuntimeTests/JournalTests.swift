import Foundation
import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
import YaiaRuntime

/// example/login with one deliberate change: emails are lower-cased.
struct ChangedLogin: SceneState {
    static let name = LoginState.name
    var inner: LoginState

    typealias Action = LoginState.Action

    init(args: JSON) throws(YaiaError) { inner = try LoginState(args: args) }
    init(json: JSON) throws(YaiaError) { inner = try LoginState(json: json) }
    var json: JSON { inner.json }
    var viewModel: LoginState.ViewModel { inner.viewModel }

    mutating func reduce(_ action: Action) -> [Command] {
        if case .emailChanged(let email) = action { return inner.reduce(.emailChanged(email.lowercased())) }
        return inner.reduce(action)
    }
}

@Suite struct JournalTests {
    let catalog = Catalog(SceneCatalog(Examples.sceneTypes))

    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("yaia-\(UUID().uuidString)-\(name)").path
    }

    func send(_ rt: Runtime, _ scene: Int64, _ type: String, _ payload: JSON? = nil) throws -> JSON {
        try rt.send(scene: scene, action: Action(type, payload: payload))
    }

    /// Records: open login (1), email lower (2), password (3), email upper (4), submit (5), outcome (6).
    func record(to path: String) throws {
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        _ = try rt.startJournal(path: path)
        let scene = try #require(try rt.open("example/login")["scene"]?.int64Value)
        _ = try send(rt, scene, "emailChanged", "a@b.c")
        _ = try send(rt, scene, "passwordChanged", "pw")
        _ = try send(rt, scene, "emailChanged", "Ada@Example.com")
        let submit = try send(rt, scene, "submit")
        let effect = try #require(submit["effects"]?.arrayValue?.first?["id"]?.int64Value)
        _ = try rt.resolve(effect: effect, outcome: .success(["user": ["email": "Ada@Example.com"]]))
        _ = rt.stopJournal()
    }

    @Test func aRecordedSessionReplaysIdentically() throws {
        let path = temporaryPath("same.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try record(to: path)
        let result = try Runtime.replay(path: path, catalog: catalog)
        #expect(result["identical"] == true)
        #expect(result["inputs"] == 6)
    }

    @Test func aChangedReducerDivergesAtTheExactFirstSeq() throws {
        let path = temporaryPath("changed.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try record(to: path)
        var changed = catalog
        changed.register(ChangedLogin.self)
        let result = try Runtime.replay(path: path, catalog: changed)
        #expect(result["identical"] == false)
        // Seq 2 ("a@b.c") is lower-case already: the first difference is seq 4.
        #expect(result["divergence"]?["seq"] == 4)
        #expect(result["divergence"]?["kind"] == "send")
        #expect(result["divergence"]?["viewModel"]?["email"] == "ada@example.com")
    }

    @Test func replayUpToASeqAnswersWithTheStateThen() throws {
        let path = temporaryPath("upto.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try record(to: path)
        let result = try Runtime.replay(path: path, catalog: catalog, upTo: 3)
        #expect(result["inputs"] == 3)
        let state = result["snapshot"]?["scenes"]?.arrayValue?.first?["state"]
        #expect(state?["email"] == "a@b.c")
        #expect(state?["password"] == "pw")
    }

    @Test func aJournalOfAnotherFormatIsRefused() throws {
        let path = temporaryPath("bad.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"format":"yaia.journal/0","kind":"begin","snapshot":{}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect { try Runtime.replay(path: path, catalog: catalog) } throws: { ($0 as? YaiaError)?.code == .badJournal }
    }

    @Test func snapshotsRestoreTheSameViewModelsByteForByte() throws {
        let source = Runtime(catalog: catalog)
        defer { source.shutDown() }
        let flow = try source.startFlow(name: "main", scene: "example/login", args: [:])
        let flowID = try #require(flow["flow"]?.int64Value)
        _ = try source.send(flow: flowID, action: Action("emailChanged", payload: "a@b.c"))
        _ = try source.send(flow: flowID, action: Action("passwordChanged", payload: "pw"))
        let submit = try source.send(flow: flowID, action: Action("submit"))
        let effect = try #require(submit["effects"]?.arrayValue?.first?["id"]?.int64Value)
        _ = try source.resolve(effect: effect, outcome: .success(["user": "u"]))
        _ = try source.send(flow: flowID, action: Action("load"))  // pending: no store service here

        let snapshot = try source.snapshot()
        let target = Runtime(catalog: catalog)
        defer { target.shutDown() }
        let restored = try target.restore(snapshot)
        let before = try source.describeFlow(flowID)["stack"]?.arrayValue?.map { $0["viewModel"]?.serialized() }
        let after = restored["scenes"]?.arrayValue?.map { $0["viewModel"]?.serialized() }
        #expect(before == after)
        // home's load asked to be reissued: it is pending again, under the same id.
        #expect(restored["effects"]?["reissued"]?.arrayValue?.count == 1)
        #expect(try target.describeFlow(flowID)["stack"] == source.describeFlow(flowID)["stack"])
    }
}
