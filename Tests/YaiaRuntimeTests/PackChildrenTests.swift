import CYaiaScene
import Testing
import YaiaCore
import YaiaExamples
@testable import YaiaKit
@testable import YaiaRuntime

/// Child scenes of a pack's scenes: slots and children cross the scene-pack
/// ABI as JSON text (yaia_scene.h), written by YaiaKit's glue and read by
/// the runtime's loader, in one process.
@Suite struct PackChildrenTests {
    func runtime(_ types: [SceneType]) throws -> Runtime {
        let descriptor = ScenePack.makeDescriptor(name: "rows", version: nil, types: types, documents: [],
                                                  write: try #require(hostTable.pointee.write))
        var catalog = Catalog()
        try catalog.add(try checkPack(UnsafePointer(descriptor), path: "(in process)", shownAs: "rows"))
        return Runtime(catalog: catalog, workers: 1)
    }

    @Test func slotsReadBackFromTheTextTheGlueWrites() {
        let read = ChildSlot.read(ChildSlot.json(RowsState.childSlots))
        #expect(read.problems.isEmpty)
        #expect(read.slots == RowsState.childSlots)
        let intercepting = [ChildSlot("header", scene: "a/b", kind: .optional, intercept: true)]
        #expect(ChildSlot.read(ChildSlot.json(intercepting)).slots == intercepting)
    }

    @Test func childrenReadBackFromTheirText() throws {
        for child in [Child.keyed("rows", key: 7, args: ["id": 7]), Child.keyed("rows", key: "a"), Child.one("header")] {
            #expect(try Child(json: child.json, at: "") == child)
        }
        #expect(try Child(json: ["slot": "header"], at: "") == Child.one("header"))
        let unknown = yaiaError { () throws(YaiaError) in _ = try Child(json: ["slot": "rows", "kee": 1], at: "/3") }
        #expect(unknown?.code == .scenePackError)
        #expect(unknown?.at == "/3/kee")
        let noSlot = yaiaError { () throws(YaiaError) in _ = try Child(json: ["key": 1], at: "/0") }
        #expect(noSlot?.at == "/0")
    }

    @Test func slotsWithProblemsAreReportedAllAtOnce() throws {
        let json = try JSONParser.parse(#"""
            {"a/b": {"scene": "x/y", "kind": "one"},
             "rows": {"kind": "many", "size": 3, "intercept": 1, "outputs": {"open": 2}, "argsAction": ""},
             "tab": []}
            """#)
        let problems = ChildSlot.read(json).problems.map(\.at)
        #expect(problems == ["/a~1b", "/rows/size", "/rows/scene", "/rows/kind", "/rows/intercept", "/rows/outputs/open",
                             "/rows/argsAction", "/tab"])
        #expect(ChildSlot.read([1]).problems.map(\.at) == [""])
    }

    @Test func aSwiftPackSceneHoldsItsChildren() throws {
        let rt = try runtime(Examples.childSceneTypes)
        defer { rt.shutDown() }
        let pack = try #require(rt.catalog["example/rows"]?.pack)
        #expect(pack.name == "rows")
        let id = try #require(try rt.open("example/rows")["scene"]?.int64Value)
        let added = try rt.send(scene: id, action: Action("add", payload: ["id": 7, "title": "Milk"]))
        #expect(added["viewModel"]?["rows"]?.arrayValue?.first?["title"] == "Milk")
        // By path, the row's output arrives at the list as rowOpened.
        let sent = rt.execute(["op": "send", "scene": .int(id), "path": ["rows", 7], "action": ["type": "open"]])
        #expect(sent["path"] == ["rows", 7])
        #expect(try rt.state(scene: id)["state"]?["opened"] == 7)
        let row = try #require(sent["scene"]?.int64Value)
        _ = try rt.send(scene: id, action: Action("remove", payload: 7))
        #expect(envelopeError(rt.execute(["op": "state", "scene": .int(row)]))?["code"] == "no_such_scene")
    }

    @Test func aPackScenesSlotsComeFromTheTypeNotAState() throws {
        let rt = try runtime(Examples.childSceneTypes)
        defer { rt.shutDown() }
        let rows = try #require(rt.catalog["example/rows"])
        #expect(rows.childSlots == RowsState.childSlots)
        let list = try rows.open(args: [:])
        #expect(list.childSlots == RowsState.childSlots)
        let row = try #require(rt.catalog["example/row"])
        let lone = try row.open(args: ["id": 1, "title": "a"])
        #expect(row.childSlots.isEmpty && lone.childSlots.isEmpty)
    }

    /// The glue answers "the same" (YAIA_SCENE_SAME_CHILDREN, nothing
    /// written) while the state wants the children of its last answer.
    @Test func theGlueAnswersTheSameForAnUnchangedList() throws {
        let descriptor = ScenePack.makeDescriptor(name: "rows", version: nil, types: Examples.childSceneTypes, documents: [],
                                                  write: try #require(hostTable.pointee.write))
        let type = try #require(descriptor.pointee.scenes?[0]).pointee
        #expect(String(cString: try #require(type.name)) == "example/rows")
        let children = try #require(type.children)
        let opened = SceneBuffer()
        let args = #"{"items":[]}"#
        let state = try #require(args.withCString { type.open?(descriptor.pointee.scenes?[0], $0, args.utf8.count, opened.handle) })
        defer { type.free_state?(state) }
        func answer() -> (Int32, String) {
            let out = SceneBuffer()
            let code = children(state, out.handle)
            return (code, out.writer.withBytes { String(decoding: $0, as: UTF8.self) })
        }
        func reduce(_ action: String) {
            let out = SceneBuffer(), view = SceneBuffer()
            #expect(action.withCString { type.reduce?(state, $0, action.utf8.count, out.handle, view.handle) } == 0)
        }
        #expect(answer() == (0, "[]"))
        #expect(answer() == (YAIA_SCENE_SAME_CHILDREN, ""))
        reduce(#"{"type":"add","payload":{"id":7,"title":"Milk"}}"#)
        let (code, text) = answer()
        #expect(code == 0 && text.contains("Milk"))
        #expect(answer() == (YAIA_SCENE_SAME_CHILDREN, ""))
        reduce(#"{"type":"rowOpened","payload":{"key":7}}"#)
        #expect(answer() == (YAIA_SCENE_SAME_CHILDREN, ""), "a reduction that changes no child")
        reduce(#"{"type":"retitle","payload":{"id":7,"title":"Oat milk"}}"#)
        #expect(answer().1.contains("Oat milk"), "changed args are written")
    }

    /// On "the same" the runtime's scene gives the very array it read last,
    /// which the reconciliation knows as the list it has.
    @Test func aPackScenesSameChildrenAreTheArrayReadLast() throws {
        let rt = try runtime(Examples.childSceneTypes)
        defer { rt.shutDown() }
        let rows = try #require(rt.catalog["example/rows"])
        let list = try #require(try rows.open(args: ["items": []]) as? LivePackScene)
        _ = try list.reduce(Action("add", payload: ["id": 7, "title": "Milk"]))
        let first = try list.children()
        #expect(first == [Child.keyed("rows", key: 7, args: ["id": 7, "title": "Milk"])])
        let again = try list.children()
        #expect(again.withUnsafeBufferPointer(\.baseAddress) == first.withUnsafeBufferPointer(\.baseAddress))
        _ = try list.reduce(Action("retitle", payload: ["id": 7, "title": "Oat milk"]))
        #expect(try list.children() == [Child.keyed("rows", key: 7, args: ["id": 7, "title": "Oat milk"])])
    }

    /// Kept children keep their args across sends that change no child,
    /// and a changed list still reaches them (the slot's argsAction).
    @Test func argsStillReachKeptRowsBetweenUnchangedLists() throws {
        let rt = try runtime(Examples.childSceneTypes)
        defer { rt.shutDown() }
        let id = try #require(try rt.open("example/rows", args: ["items": []])["scene"]?.int64Value)
        _ = try rt.send(scene: id, action: Action("add", payload: ["id": 7, "title": "Milk"]))
        let sent = rt.execute(["op": "send", "scene": .int(id), "path": ["rows", 7], "action": ["type": "open"]])
        let row = try #require(sent["scene"]?.int64Value)
        _ = try rt.send(scene: id, action: Action("rowOpened", payload: ["key": 7]))
        #expect(try rt.state(scene: row)["state"]?["title"] == "Milk")
        _ = try rt.send(scene: id, action: Action("retitle", payload: ["id": 7, "title": "Oat milk"]))
        #expect(try rt.state(scene: row)["state"]?["title"] == "Oat milk", "the same row, its args delivered")
    }
}
