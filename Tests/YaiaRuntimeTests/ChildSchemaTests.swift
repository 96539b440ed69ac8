import Testing
import YaiaCore
import YaiaExamples
@testable import YaiaKit
@testable import YaiaRuntime

/// `{"op": "schema"}` gives a scene type's child slots and each child's
/// interface, whatever defines the parent or the child (docs/composition.md).
@Suite struct ChildSchemaTests {
    static let cell: JSON = [
        "yaia": 1, "scene": "schema/cell", "state": ["n": 0],
        "actions": ["bump": ["set": ["n": ["+": [["var": "state.n"], 1]]], "output": ["type": "bumped", "payload": ["var": "state.n"]]],
                    "reset": [["when": ["var": "payload"], "set": ["n": 0], "output": ["type": "cleared"]], ["set": ["n": 0]]]],
    ]
    static let list: JSON = [
        "yaia": 1, "scene": "schema/list", "state": ["items": ["literal": [["id": 1]]], "last": .null],
        "actions": ["cellBumped": ["set": ["last": ["var": "payload"]]], "rows/willSend": ["set": ["last": .null]]],
        "children": ["cells": ["scene": "schema/cell", "kind": "keyed", "from": ["var": "state.items"], "outputs": ["bumped": "cellBumped"]],
                     "rows": ["scene": "example/row", "kind": "optional", "from": ["var": "state.last"], "intercept": true]],
    ]

    /// What example/rows' schema says of its slot, from any definition of it.
    static let rowsChildren: JSON = [
        "rows": ["scene": "example/row", "kind": "keyed", "intercept": false, "outputs": ["open": "rowOpened", "renamed": "rowRenamed"],
                 "argsAction": "setArgs", "child": ["declared": false]],
    ]

    @Test func aSwiftScenesSlotsAndItsChildsInterface() {
        let rt = Runtime(catalog: SceneCatalog(Examples.childSceneTypes))
        defer { rt.shutDown() }
        let answer = rt.execute(["op": "schema", "scene": "example/rows"])
        #expect(answer["children"] == Self.rowsChildren)
        #expect(rt.execute(["op": "schema", "scene": "example/row"])["children"] == nil, "a scene without slots has no children member")
    }

    @Test func aPackScenesSlotsAreTheSame() throws {
        let descriptor = ScenePack.makeDescriptor(name: "rows", version: nil, types: Examples.childSceneTypes, documents: [],
                                                  write: try #require(hostTable.pointee.write))
        var catalog = Catalog()
        try catalog.add(try checkPack(UnsafePointer(descriptor), path: "(in process)", shownAs: "rows"))
        let rt = Runtime(catalog: catalog, workers: 1)
        defer { rt.shutDown() }
        #expect(rt.execute(["op": "schema", "scene": "example/rows"])["children"] == Self.rowsChildren)
    }

    @Test func aDocumentsSlotsGiveTheDocumentChildsActionsAndOutputs() throws {
        let rt = Runtime(catalog: SceneCatalog(Examples.childSceneTypes))
        defer { rt.shutDown() }
        for document in [Self.cell, Self.list] { _ = try rt.register(document: document) }
        let children = rt.execute(["op": "schema", "scene": "schema/list"])["children"]
        #expect(children?["cells"] == ["scene": "schema/cell", "kind": "keyed", "intercept": false, "outputs": ["bumped": "cellBumped"],
                                       "child": ["declared": true, "actions": ["bump", "reset"], "outputs": ["bumped", "cleared"]]])
        // A Swift child of a document parent: its interface is not declared.
        #expect(children?["rows"] == ["scene": "example/row", "kind": "optional", "intercept": true, "outputs": [:], "child": ["declared": false]])
    }
}
