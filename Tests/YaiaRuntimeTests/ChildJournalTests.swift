import Foundation
import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
import YaiaRuntime

/// Child scenes in journals, and the problems of children a state lists
/// (docs/composition.md).
@Suite struct ChildJournalTests {
    let catalog = Catalog(SceneCatalog(Examples.sceneTypes + Examples.childSceneTypes))

    func send(_ rt: Runtime, _ path: JSON, _ action: JSON) -> JSON {
        let request: JSON = ["op": "send", "scene": 1, "path": path, "action": action]
        return rt.run(request.description)
    }

    @Test func aJournalOfAThousandChildrenReplaysToTheSameBytes() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("yaia-\(UUID().uuidString)-children.jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        _ = try rt.startJournal(path: path)
        let items = JSON.array((1...1_000).map { i in ["id": .int(Int64(i)), "title": .string("item \(i)")] })
        let request: JSON = ["op": "open", "scene": "example/rows", "args": ["items": items]]
        #expect(rt.run(request.description)["ok"] == true)
        // A row renames itself and saves: its effect's outcome makes it say
        // so to the list, which retitles the item and so the row's args.
        _ = send(rt, ["rows", 7], ["type": "rename", "payload": "seven"])
        let effect = try #require(send(rt, ["rows", 7], ["type": "save"])["effects"]?.arrayValue?.first?["id"]?.int64Value)
        _ = try rt.resolve(effect: effect, outcome: .success(.null))
        _ = send(rt, ["rows", 8], ["type": "togglePin"])
        _ = send(rt, ["rows", 9], ["type": "open"])
        // One row goes, one comes: ids are taken in turn.
        _ = rt.run(#"{"op":"send","scene":1,"action":{"type":"remove","payload":3}}"#)
        _ = rt.run(#"{"op":"send","scene":1,"action":{"type":"add","payload":{"id":1001,"title":"new"}}}"#)
        _ = rt.stopJournal()
        let snapshot = try rt.snapshot()
        #expect(snapshot["scenes"]?.arrayValue?.count == 1_001)
        #expect(rt.run(#"{"op":"state","scene":1}"#)["state"]?["opened"] == 9)

        let replayed = try Runtime.replay(path: path, catalog: catalog, upTo: Int64.max)
        #expect(replayed["identical"] == true)
        #expect(replayed["inputs"] == 8)
        #expect(replayed["snapshot"]?.description == snapshot.description)
    }

    @Test func aRestoredChildKeepsItsPlaceEightLevelsDown() throws {
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        _ = try rt.register(document: ChildDocuments.nest)
        _ = rt.run(#"{"op":"open","scene":"test/nest"}"#)
        let other = Runtime(catalog: catalog)
        defer { other.shutDown() }
        _ = try other.restore(try rt.snapshot())
        // Scene 9 is the deepest: each level's place is made from its parent's.
        let deepest = other.run(#"{"op":"send","scene":9,"action":{"type":"noop"}}"#)
        #expect(deepest["top"] == 1)
        #expect(deepest["path"] == .array(Array(repeating: "inner", count: 8)))
        #expect(rt.run(#"{"op":"send","scene":9,"action":{"type":"noop"}}"#)["path"] == deepest["path"])
    }

    @Test func aChildTheSlotsDoNotAllowIsLeftOutAsBadChild() throws {
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        _ = try rt.register(document: ChildDocuments.cell)
        _ = try rt.register(document: [
            "yaia": 1, "scene": "test/dupes",
            "state": ["items": ["literal": [["id": 1], ["id": 1], ["id": true], ["id": "b"]]]],
            "actions": ["noop": ["set": [:]]],
            "children": ["cells": ["scene": "test/cell", "kind": "keyed", "from": ["var": "state.items"], "args": ["start": 0]]],
        ])
        let opened = rt.run(#"{"op":"open","scene":"test/dupes"}"#)
        let problems = opened["childErrors"]?.arrayValue ?? []
        #expect(problems.map { $0["error"]?["code"] ?? .null } == ["bad_child", "bad_child"])
        #expect(problems.map { $0["key"] ?? .null } == [1, true])
        // The others open.
        #expect(opened["viewModel"]?["cells"]?.arrayValue?.count == 2)
    }

    @Test func aSlotThatDoesNotInterceptLetsTheChildReduceTheActionItself() throws {
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        _ = rt.run(#"{"op":"open","scene":"example/rows"}"#)
        let before = rt.run(#"{"op":"state","scene":1}"#)["state"]
        let pinned = send(rt, ["rows", 2], ["type": "togglePin"])
        #expect(pinned["scene"] == 3)
        #expect(pinned["viewModel"]?["pinned"] == true)
        #expect(rt.run(#"{"op":"state","scene":1}"#)["state"] == before)
    }
}
