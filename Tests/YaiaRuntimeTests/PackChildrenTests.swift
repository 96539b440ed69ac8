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
}
