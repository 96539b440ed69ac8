import Testing
@testable import YaiaCore
import YaiaExamples
import YaiaKit
@testable import YaiaRuntime

/// A parent's view composed from its children's kept view models is the one
/// built afresh, whatever was sent, restored or closed in between, and
/// unchanged rows are the very values kept (docs/composition.md).
@Suite struct ChildViewCacheTests {
    /// A deterministic generator (SplitMix64): the same steps every run.
    struct Steps {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(n))
        }
    }

    func runtime(view: ViewMode) throws -> Runtime {
        let rt = Runtime(catalog: SceneCatalog(Examples.sceneTypes + Examples.childSceneTypes + [SceneType(HolderState.self)]))
        rt.lock.withLock { rt.state.viewMode = view }
        for document in [ChildDocuments.cell, ChildDocuments.guarded, ChildDocuments.nest] { _ = try rt.register(document: document) }
        let items = JSON.array((1...20).map { i in ["id": .int(Int64(i)), "title": .string("item \(i)")] })
        for request: JSON in [["op": "open", "scene": "example/rows", "args": ["items": items]], ["op": "open", "scene": "test/guarded"],
                              ["op": "open", "scene": "test/holder"], ["op": "open", "scene": "test/nest"]] {
            #expect(rt.run(request.description)["ok"] == true)
        }
        return rt
    }

    func send(_ rt: Runtime, _ scene: Int64, _ path: JSON, _ action: JSON) -> JSON {
        let request: JSON = ["op": "send", "scene": .int(scene), "path": path, "action": action]
        return rt.run(request.description)
    }

    /// Every open scene's composed view against the fresh one; in patch
    /// mode, each view last sent against the scene's fresh view too.
    func expectComposedEqualsFresh(_ rt: Runtime, step: Int) {
        let state = rt.lock.withLock { rt.state }
        for scene in state.scenes.values {
            var copy = state
            let fresh = state.viewModel(of: scene.id)
            #expect(copy.composedView(of: scene.id) == fresh, "scene \(scene.id) at step \(step)")
            if let sent = state.views.sent[scene.id], let view = sent.view {
                #expect(view == fresh, "the view sent of scene \(scene.id) at step \(step)")
            }
        }
    }

    @Test(arguments: ViewMode.allCases)
    func randomSendsSnapshotsAndRestoresComposeTheFreshView(view: ViewMode) throws {
        let rt = try runtime(view: view)
        defer { rt.shutDown() }
        var steps = Steps(state: 2026)
        var saves: [Int64] = []
        let rowsTop: Int64 = 1
        for step in 0..<200 {
            let id = JSON.int(Int64(1 + steps.next(24)))
            var answer: JSON = .null
            let kind = steps.next(12)
            let retitled = kind == 2
            switch kind {
            case 0: answer = send(rt, rowsTop, [], ["type": "add", "payload": ["id": id, "title": .string("new \(step)")]])
            case 1: answer = send(rt, rowsTop, [], ["type": "remove", "payload": id])
            case 2: answer = send(rt, rowsTop, [], ["type": "retitle", "payload": ["id": id, "title": .string("re \(step)")]])
            case 3: answer = send(rt, rowsTop, ["rows", id], ["type": "rename", "payload": .string("row \(step)")])
            case 4:
                answer = send(rt, rowsTop, ["rows", id], ["type": "save"])
                if let effect = answer["effects"]?.arrayValue?.first?["id"]?.int64Value { saves.append(effect) }
            case 5:
                // A save's outcome: the row says it was renamed, the list retitles, the row gets its args.
                if let effect = saves.popLast() { _ = try? rt.resolve(effect: effect, outcome: .success(.null)) }
            case 6: answer = send(rt, rowsTop, ["rows", id], ["type": steps.next(2) == 0 ? "togglePin" : "open"])
            case 7: answer = send(rt, 2, ["rows", .int(Int64(1 + steps.next(2)))], ["type": "togglePin"])
            case 8: answer = send(rt, 3, steps.next(2) == 0 ? [] : ["cell"], ["type": steps.next(2) == 0 ? "toggle" : "bump"])
            case 9:
                let request: JSON = ["op": "send", "scene": .int(Int64(4 + steps.next(9))), "action": ["type": "noop"]]
                answer = rt.run(request.description)
            case 10:
                _ = try rt.restore(try rt.snapshot())
                saves = []
            default:
                // Back to an earlier state with the same ids and seqs but other children.
                let snapshot = try rt.snapshot()
                _ = send(rt, rowsTop, [], ["type": "add", "payload": ["id": 99, "title": "gone again"]])
                _ = send(rt, rowsTop, ["rows", 99], ["type": "rename", "payload": "never seen"])
                _ = try rt.restore(snapshot)
                saves = []
            }
            // A send to the list answers its view: whole, it is the fresh one
            // (but a retitle's, made before the row hears its new args).
            if view == .whole, answer["scene"] == .int(rowsTop), !retitled, let sent = answer["viewModel"] {
                #expect(sent == rt.lock.withLock { rt.state.viewModel(of: rowsTop) }, "step \(step)")
            }
            expectComposedEqualsFresh(rt, step: step)
        }
    }

    @Test(arguments: ViewMode.allCases)
    func aSendToTheParentReusesTheViewsOfTheRowsThatDidNotChange(view: ViewMode) throws {
        let rt = try runtime(view: view)
        defer { rt.shutDown() }
        _ = send(rt, 1, ["rows", 5], ["type": "togglePin"])
        _ = send(rt, 1, [], ["type": "retitle", "payload": ["id": 7, "title": "seven"]])
        var state = rt.lock.withLock { rt.state }
        let rows = try #require(state.composedView(of: 1)["rows"]?.arrayValue)
        let ids = (state.children[1]?["rows"]?.entries ?? []).map(\.id)
        #expect(rows.count == 20 && ids.count == 20)
        for (row, id) in zip(rows, ids) {
            // Each row's view is the one kept, not asked again.
            let kept = try #require(state.views.kept[id])
            #expect(kept.seq == state.scenes[id]?.seq)
            #expect(row.sharesStorage(with: kept.view), "row scene \(id)")
        }
        #expect(rows[4]["pinned"] == true)
        #expect(rows[6]["title"] == "seven")
    }

    @Test(arguments: ViewMode.allCases)
    func aSendToTheParentThatChangesNoRowKeepsTheListOfRowViewsComposed(view: ViewMode) throws {
        let rt = try runtime(view: view)
        defer { rt.shutDown() }
        func composed() -> JSON? { rt.lock.withLock { rt.state.views.lists[1]?["rows"]?.view } }
        _ = send(rt, 1, [], ["type": "rowOpened", "payload": ["key": 3]])
        let before = try #require(composed())
        _ = send(rt, 1, [], ["type": "rowOpened", "payload": ["key": 4]])
        // The very list: no row was visited.
        #expect(try #require(composed()).sharesStorage(with: before))
        // A row's reduction drops it, and the next has the row's new view.
        _ = send(rt, 1, ["rows", 5], ["type": "togglePin"])
        #expect(composed() == nil)
        var state = rt.lock.withLock { rt.state }
        #expect(state.composedView(of: 1)["rows"]?.arrayValue?[4]["pinned"] == true)
    }
}
