import Testing
@testable import YaiaCore
import YaiaExamples
import YaiaKit

/// The reconciliation of a parent whose state wants the very list it
/// reconciled last time: skipped, every child left as it is.
@Suite struct ReconcileSkipTests {
    struct World: RuntimeEnvironment {
        let catalog = SceneCatalog(Examples.childSceneTypes)
        var now: Double { 0 }

        func serves(_ service: String) -> Bool { false }
        func openScene(_ name: String, args: JSON) throws(YaiaError) -> any LiveScene {
            guard let type = catalog[name] else { throw YaiaError(.unknownScene, "no scene type named \"\(name)\"") }
            return try type.open(args: args)
        }
    }

    func send(_ state: inout RuntimeState, _ scene: Int64, _ action: Action) throws -> JSON {
        var steps: [RuntimeState.Step] = []
        return try state.send(.scene(scene), action, env: World(), steps: &steps).json
    }

    @Test func anUnchangedListIsRememberedAndChangesNoChild() throws {
        var state = RuntimeState()
        let rows = try #require(try state.open(try World().openScene("example/rows", args: ["items": []]), env: World())["scene"]?.int64Value)
        _ = try send(&state, rows, Action("add", payload: ["id": 7, "title": "Milk"]))
        let wanted = [Child.keyed("rows", key: 7, args: ["id": 7, "title": "Milk"])]
        #expect(state.children.lastWanted[rows] == wanted)
        let row = try #require(state.children.child(of: rows, slot: "rows", key: 7))
        let table = state.children[rows]

        _ = try send(&state, rows, Action("rowOpened", payload: ["key": 7]))
        #expect(state.children[rows] == table && state.children.lastWanted[rows] == wanted)
        #expect(state.children.child(of: rows, slot: "rows", key: 7) == row)

        // A changed list is reconciled: the kept row hears its new args.
        _ = try send(&state, rows, Action("retitle", payload: ["id": 7, "title": "Oat milk"]))
        #expect(try state.scenes[row]?.value.json["title"] == "Oat milk")
        #expect(state.children.lastWanted[rows] == [Child.keyed("rows", key: 7, args: ["id": 7, "title": "Oat milk"])])
        #expect(state.children.child(of: rows, slot: "rows", key: 7) == row)
    }

    /// The list remembered is trusted, not compared with the table: a table
    /// emptied behind the runtime's back stays empty while the list stays.
    @Test func theRememberedListSkipsTheReconciliation() throws {
        var state = RuntimeState()
        let rows = try #require(try state.open(try World().openScene("example/rows", args: ["items": []]), env: World())["scene"]?.int64Value)
        _ = try send(&state, rows, Action("add", payload: ["id": 7, "title": "Milk"]))
        let wanted = try #require(state.children.lastWanted[rows])
        state.children.reconciled(rows, [:], wanted: wanted)
        _ = try send(&state, rows, Action("rowOpened", payload: ["key": 7]))
        #expect(state.children[rows] == nil, "skipped: no row opened")
        _ = try send(&state, rows, Action("add", payload: ["id": 8, "title": "Eggs"]))
        #expect(state.children[rows]?["rows"]?.entries.map(\.key) == [7, 8], "a changed list is reconciled")
    }

    /// A list with problems is not remembered: the next reduction meets
    /// them again and reports them again.
    @Test func aListWithProblemsIsReconciledAgain() throws {
        var state = RuntimeState(childLimit: 1)
        let rows = try #require(try state.open(try World().openScene("example/rows", args: ["items": []]), env: World())["scene"]?.int64Value)
        _ = try send(&state, rows, Action("add", payload: ["id": 7, "title": "Milk"]))
        let over = try send(&state, rows, Action("add", payload: ["id": 8, "title": "Eggs"]))
        #expect(over["childErrors"]?.arrayValue?.first?["error"]?["code"] == "too_many_children")
        #expect(state.children.lastWanted[rows] == nil)
        let again = try send(&state, rows, Action("rowOpened", payload: ["key": 7]))
        #expect(again["childErrors"]?.arrayValue?.first?["error"]?["code"] == "too_many_children")
        #expect(state.children.lastWanted[rows] == nil)
    }

    /// Any other change to a parent's children forgets its list.
    @Test func settingAParentsChildrenForgetsItsList() {
        var table = ChildTable()
        let list = [Child.keyed("rows", key: 1)]
        table.reconciled(3, ["rows": SlotChildren()], wanted: list)
        #expect(table.lastWanted[3] == list)
        table[3] = nil
        #expect(table.lastWanted[3] == nil)
        table.reconciled(3, [:], wanted: list)
        table.removeAll()
        #expect(table.lastWanted[3] == nil)
    }
}
