import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
import YaiaRuntime

/// A Swift parent of a document child: the child is there while `shown`.
struct HolderState: SceneState {
    static let name = "test/holder"
    var shown = true
    var bumps = 0

    static var childSlots: [ChildSlot] { [ChildSlot("cell", scene: "test/cell", kind: .optional, outputs: ["bumped": "cellBumped"])] }
    var children: [Child] { shown ? [Child.one("cell", args: ["start": 10])] : [] }

    enum Action: SceneAction, Equatable {
        case toggle, cellBumped
        init(_ action: YaiaKit.Action) throws(YaiaError) {
            switch action.type {
            case "toggle": self = .toggle
            case "cellBumped": self = .cellBumped
            default: throw action.unknown
            }
        }
    }

    init(args: JSON) throws(YaiaError) {}
    init(json: JSON) throws(YaiaError) {
        shown = json["shown"] == true
        bumps = json["bumps"]?.int64Value.map(Int.init) ?? 0
    }
    var json: JSON { ["shown": .bool(shown), "bumps": .int(Int64(bumps))] }
    var viewModel: JSON { ["bumps": .int(Int64(bumps))] }

    mutating func reduce(_ action: Action) -> [Command] {
        switch action {
        case .toggle: shown.toggle()
        case .cellBumped: bumps += 1
        }
        return []
    }
}

enum ChildDocuments {
    /// A document child: counts, and says so to its parent.
    static let cell: JSON = [
        "yaia": 1, "scene": "test/cell", "args": ["start": ["type": "integer"]], "state": ["n": ["var": "args.start"]],
        "actions": ["bump": ["set": ["n": ["+": [["var": "state.n"], 1]]], "output": ["type": "bumped", "payload": ["var": "state.n"]]]],
    ]

    /// A document parent of Swift rows that sees their actions first and
    /// passes them on unless locked.
    static let guarded: JSON = [
        "yaia": 1, "scene": "test/guarded",
        "state": ["items": ["literal": [["id": 1, "title": "a"], ["id": 2, "title": "b"]]], "seen": 0, "locked": false, "opened": .null],
        "actions": [
            "rows/willSend": [
                ["when": ["var": "state.locked"], "set": ["seen": ["+": [["var": "state.seen"], 1]]]],
                ["set": ["seen": ["+": [["var": "state.seen"], 1]]],
                 "child": ["slot": "rows", "key": ["var": "payload.key"], "action": ["var": "payload.action"]]],
            ],
            "lock": ["set": ["locked": true]],
            "opened": ["set": ["opened": ["var": "payload.key"]]],
        ],
        "children": ["rows": ["scene": "example/row", "kind": "keyed", "from": ["var": "state.items"],
                              "args": ["id": ["var": "item.id"], "title": ["var": "item.title"]],
                              "intercept": true, "outputs": ["open": "opened"]]],
    ]

    /// A scene whose one child is a scene of its own type: nests until the limit.
    static let nest: JSON = [
        "yaia": 1, "scene": "test/nest", "state": ["x": 0], "actions": ["noop": ["set": ["x": 1]]],
        "children": ["inner": ["scene": "test/nest", "kind": "one"]],
    ]
}

extension JSON {
    /// Item `i` of an array.
    fileprivate subscript(_ i: Int) -> JSON? {
        guard case .array(let a) = self, a.indices.contains(i) else { return nil }
        return a[i]
    }
}

@Suite struct ChildSceneTests {
    func runtime() throws -> Runtime {
        let rt = Runtime(catalog: SceneCatalog(Examples.sceneTypes + Examples.childSceneTypes + [SceneType(HolderState.self)]))
        for document in [ChildDocuments.cell, ChildDocuments.guarded, ChildDocuments.nest] { _ = try rt.register(document: document) }
        return rt
    }

    func send(_ rt: Runtime, _ scene: Int64, _ path: JSON, _ action: JSON) -> JSON {
        let request: JSON = ["op": "send", "scene": .int(scene), "path": path, "action": action]
        return rt.run(request.description)
    }

    func titles(_ view: JSON?) -> [String] {
        (view?["rows"]?.arrayValue ?? []).compactMap { $0["title"]?.stringValue }
    }

    @Test func childrenOpenAndCloseWithTheirParentsStateAndTheirEffectsEnd() throws {
        let rt = try runtime()
        let opened = rt.run(#"{"op":"open","scene":"example/rows"}"#)
        #expect(opened["scene"] == 1)
        #expect(titles(opened["viewModel"]) == ["Milk", "Eggs", "Bread"])
        let listed = rt.sceneList()["scenes"]?.arrayValue ?? []
        #expect(listed.map { $0["parent"] ?? .null } == [.null, 1, 1, 1])

        // Row 1 starts a save nobody serves: its effect waits.
        _ = send(rt, 1, ["rows", 1], ["type": "rename", "payload": "Oat milk"])
        let saving = send(rt, 1, ["rows", 1], ["type": "save"])
        #expect(saving["scene"] == 2)
        #expect(saving["top"] == 1)
        #expect(saving["path"] == ["rows", 1])
        #expect(saving["viewAt"] == "/rows/0")
        #expect(saving["effects"]?[0]?["id"] == 1)

        // The list drops item 1: its row closes, and its save with it.
        let removed = rt.run(#"{"op":"send","scene":1,"action":{"type":"remove","payload":1}}"#)
        #expect(titles(removed["viewModel"]) == ["Eggs", "Bread"])
        #expect(envelopeError(rt.run(#"{"op":"resolve","effect":1,"result":null}"#))?["code"] == "effect_already_resolved")
        #expect(envelopeError(send(rt, 1, ["rows", 1], ["type": "save"]))?["code"] == "no_such_child")
        #expect(envelopeError(rt.run(#"{"op":"send","scene":2,"action":{"type":"save"}}"#))?["code"] == "no_such_scene")

        // A new item opens a new row, at the end.
        let added = rt.run(#"{"op":"send","scene":1,"action":{"type":"add","payload":{"id":9,"title":"Tea"}}}"#)
        #expect(titles(added["viewModel"]) == ["Eggs", "Bread", "Tea"])
        let pinned = send(rt, 1, ["rows", 9], ["type": "togglePin"])
        #expect(pinned["scene"] == 5)
        // Item 1 gone, item 9 is third: its view model is the list's third row.
        #expect(pinned["viewAt"] == "/rows/2")
        #expect(send(rt, 1, ["rows", 3], ["type": "togglePin"])["viewAt"] == "/rows/1")
        // A child is closed by its parent's state, not directly.
        #expect(envelopeError(rt.run(#"{"op":"close","scene":5}"#))?["code"] == "scene_is_child")
        // Closing the parent closes its children.
        #expect(rt.run(#"{"op":"close","scene":1}"#)["ok"] == true)
        #expect(rt.sceneList()["scenes"] == [])
    }

    @Test func outputsArriveAtTheParentAndChangedArgsAtTheChild() throws {
        let rt = try runtime()
        _ = rt.run(#"{"op":"open","scene":"example/rows"}"#)
        let open = send(rt, 1, ["rows", 2], ["type": "open"])
        #expect(open["scene"] == 3)
        #expect(rt.run(#"{"op":"state","scene":1}"#)["state"]?["opened"] == 2)

        // A rename saved: the row's output renames the list's item.
        _ = send(rt, 1, ["rows", 2], ["type": "rename", "payload": "Duck eggs"])
        let effect = send(rt, 1, ["rows", 2], ["type": "save"])["effects"]?[0]?["id"]?.int64Value ?? 0
        _ = rt.run(#"{"op":"resolve","effect":\#(effect),"result":null}"#)
        #expect(rt.run(#"{"op":"state","scene":1}"#)["state"]?["items"]?[1]?["title"] == "Duck eggs")

        // The list retitles an item: the row gets its new args as an action.
        let retitled = rt.run(#"{"op":"send","scene":1,"action":{"type":"retitle","payload":{"id":3,"title":"Rye"}}}"#)
        #expect(retitled["viewModel"]?["rows"]?[2]?["title"] == "Bread")  // the parent's update comes first
        #expect(rt.run(#"{"op":"state","scene":4}"#)["state"]?["title"] == "Rye")
        #expect(titles(rt.run(#"{"op":"state","scene":1}"#)["viewModel"]) == ["Milk", "Duck eggs", "Rye"])
    }

    @Test func aParentThatInterceptsSeesTheActionFirstAndMayWithholdIt() throws {
        let rt = try runtime()
        _ = rt.run(#"{"op":"open","scene":"test/guarded"}"#)
        let passed = send(rt, 1, ["rows", 1], ["type": "rename", "payload": "x"])
        #expect(passed["scene"] == 1)
        #expect(rt.run(#"{"op":"state","scene":1}"#)["state"]?["seen"] == 1)
        #expect(rt.run(#"{"op":"state","scene":2}"#)["state"]?["draft"] == "x")

        // The same by the child's own id.
        _ = rt.run(#"{"op":"send","scene":1,"action":{"type":"lock"}}"#)
        let withheld = rt.run(#"{"op":"send","scene":2,"action":{"type":"rename","payload":"y"}}"#)
        #expect(withheld["scene"] == 1)
        #expect(rt.run(#"{"op":"state","scene":1}"#)["state"]?["seen"] == 2)
        #expect(rt.run(#"{"op":"state","scene":2}"#)["state"]?["draft"] == "x")

        // A Swift child's output reaches a document parent.
        _ = rt.run(#"{"op":"send","scene":1,"action":{"type":"rows/willSend","payload":{"key":2,"action":{"type":"open"}}}}"#)
        #expect(rt.run(#"{"op":"state","scene":1}"#)["state"]?["opened"] == .null)  // locked: withheld
    }

    @Test func aDocumentChildUnderASwiftParentComesAndGoesAndSpeaks() throws {
        let rt = try runtime()
        let opened = rt.run(#"{"op":"open","scene":"test/holder"}"#)
        #expect(opened["viewModel"] == ["bumps": 0, "cell": ["n": 10]])
        let bumped = send(rt, 1, ["cell"], ["type": "bump"])
        #expect(bumped["viewModel"] == ["n": 11])
        #expect(bumped["path"] == ["cell"])
        #expect(rt.run(#"{"op":"state","scene":1}"#)["viewModel"] == ["bumps": 1, "cell": ["n": 11]])
        let hidden = rt.run(#"{"op":"send","scene":1,"action":{"type":"toggle"}}"#)
        #expect(hidden["viewModel"] == ["bumps": 1, "cell": .null])
        #expect(rt.sceneList()["scenes"]?.arrayValue?.count == 1)
        let shown = rt.run(#"{"op":"send","scene":1,"action":{"type":"toggle"}}"#)
        #expect(shown["viewModel"] == ["bumps": 1, "cell": ["n": 10]])
    }

    @Test func eachLimitIsReachedWithItsCode() throws {
        let rt = try runtime()
        let nested = rt.run(#"{"op":"open","scene":"test/nest"}"#)
        #expect(nested["childErrors"]?[0]?["error"]?["code"] == "children_too_deep")
        // Nine scenes: the top and eight levels below it.
        #expect(rt.sceneList()["scenes"]?.arrayValue?.count == 9)

        let items = JSON.array((1...10_001).map { i in ["id": .int(Int64(i)), "title": "t"] })
        let request: JSON = ["op": "open", "scene": "example/rows", "args": ["items": items]]
        let many = rt.run(request.description)
        #expect(many["childErrors"]?.arrayValue?.count == 1)
        #expect(many["childErrors"]?[0]?["error"]?["code"] == "too_many_children")
        #expect(many["childErrors"]?[0]?["key"] == 10_001)
        #expect(many["viewModel"]?["rows"]?.arrayValue?.count == 10_000)
    }

    @Test func aSnapshotOfAThousandChildrenRestoresToTheSameBytes() throws {
        let rt = try runtime()
        let items = JSON.array((1...1_000).map { i in ["id": .int(Int64(i)), "title": .string("item \(i)")] })
        let request: JSON = ["op": "open", "scene": "example/rows", "args": ["items": items]]
        _ = rt.run(request.description)
        _ = send(rt, 1, ["rows", 7], ["type": "rename", "payload": "seven"])
        _ = send(rt, 1, ["rows", 8], ["type": "togglePin"])
        _ = rt.run(#"{"op":"send","scene":1,"action":{"type":"remove","payload":3}}"#)
        let snapshot = try rt.snapshot()
        let view = rt.run(#"{"op":"state","scene":1}"#)["viewModel"]

        let other = try runtime()
        _ = try other.restore(snapshot)
        #expect(try other.snapshot().description == snapshot.description)
        #expect(other.run(#"{"op":"state","scene":1}"#)["viewModel"] == view)
        // Restored children are linked: sends by path reach them.
        #expect(send(other, 1, ["rows", 7], ["type": "togglePin"])["scene"] == 8)
        #expect(envelopeError(send(other, 1, ["rows", 3], ["type": "togglePin"]))?["code"] == "no_such_child")
    }

    @Test func aSnapshotWhoseChildrenRoundInACircleIsRefused() throws {
        let rt = try runtime()
        _ = rt.run(#"{"op":"open","scene":"test/holder"}"#)
        var snapshot = try rt.snapshot()
        // The cell (2) claims the holder (1) as its child: a circle.
        guard case .object(var o) = snapshot, case .array(var scenes)? = o["scenes"], case .object(var cell) = scenes[1] else {
            Issue.record("unexpected snapshot \(snapshot)")
            return
        }
        cell["children"] = ["cell": [["scene": 1, "args": [:]]]]
        scenes[1] = .object(cell)
        o["scenes"] = .array(scenes)
        snapshot = .object(o)
        #expect(yaiaError { () throws(YaiaError) in try rt.restore(snapshot) }?.code == .badSnapshot)
    }

    @Test func inPatchModeAChangeInOneRowIsAPatchOfThatRowOnly() throws {
        let rt = Runtime(catalog: SceneCatalog(Examples.sceneTypes + Examples.childSceneTypes))
        _ = rt.run(#"{"op":"open","scene":"example/rows","view":"patch"}"#)
        let pinned = send(rt, 1, ["rows", 2], ["type": "togglePin"])
        #expect(pinned["viewPatch"] == [["op": "replace", "path": "/pinned", "value": true]])
        #expect(pinned["path"] == ["rows", 2])
        // The parent's next patch starts from the row as pinned.
        let removed = rt.run(#"{"op":"send","scene":1,"action":{"type":"remove","payload":1}}"#)
        let ops = removed["viewPatch"]?.arrayValue ?? []
        #expect(!ops.contains { $0["path"]?.stringValue?.hasSuffix("/pinned") == true })
        #expect(rt.run(#"{"op":"view","scene":1}"#)["viewModel"]?["rows"]?[0]?["pinned"] == true)
    }
}
