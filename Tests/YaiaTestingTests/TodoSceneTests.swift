import Testing
import YaiaExamples
import YaiaKit
import YaiaTesting

typealias Todo = TodoState.Todo

@Suite("SceneTest drives example/todo")
struct TodoSceneTests {
    static let args: JSON = ["todos": [["id": 1, "title": "Milk", "done": false], ["id": 2, "title": "Bread", "done": true],
                                      ["id": 3, "title": "Eggs", "done": false]]]

    @Test("opening: the items, the next id, the view members of the document's twin")
    func opening() throws {
        let test = try SceneTest(TodoState.self, args: Self.args)
        #expect(test.state.nextID == 4 && test.state.todos.count == 3)
        #expect(test.state.viewModel.json == [
            "items": [["done": false, "id": 1, "title": "Milk"], ["done": true, "id": 2, "title": "Bread"],
                      ["done": false, "id": 3, "title": "Eggs"]],
            "filter": "all", "left": 2, "total": 3, "error": .null, "draft": ""])
        // The state's JSON keeps the items as a plain array.
        #expect(test.state.json["todos"] == Self.args["todos"])
        #expect(try TodoState(json: test.state.json) == test.state)
        #expect(throws: YaiaError.self) { try TodoState(args: ["todos": [["id": 1, "title": "a", "done": false], ["id": 1, "title": "b", "done": true]]]) }
    }

    @Test("typing, adding, toggling, removing, clearing: every change asserted")
    func actions() throws {
        var test = try SceneTest(TodoState.self, args: Self.args)
        test.send("draft", payload: "  Tea ") { $0.draft = "  Tea " }
        test.expectViewModel { $0.draft == "  Tea " }
        test.send(.add("  Tea ")) {
            $0.todos.append(Todo(id: 4, title: "Tea", done: false))
            $0.nextID = 5
        }
        test.expectViewModel { $0.left == 3 && $0.total == 4 && $0.items.json.arrayValue?.last?["title"] == "Tea" }
        test.send(.add("   ")) { $0.error = "A todo needs a title" }
        test.expectViewModel { $0.error == "A todo needs a title" }
        test.send("toggle", payload: 1) {
            $0.todos[id: 1]?.done = true
        }
        test.expectViewModel { $0.left == 2 && $0.items.json.arrayValue?.first?["done"] == true }
        test.send(.toggle(99))
        test.send("remove", payload: 3) { $0.todos.remove(id: 3) }
        test.send(.show(.done)) { $0.filter = .done }
        test.expectViewModel { $0.items.json.arrayValue?.compactMap { $0["id"]?.int64Value } == [1, 2] }
        test.send(.show(.active)) { $0.filter = .active }
        test.expectViewModel { $0.items.json.arrayValue?.compactMap { $0["id"]?.int64Value } == [4] }
        test.send(.clearDone) {
            $0.todos.remove(id: 1)
            $0.todos.remove(id: 2)
        }
        test.expectViewModel { $0.left == 1 && $0.total == 1 }
        test.finish()
        #expect(test.failures.isEmpty)
        #expect(throws: YaiaError.self) { try TodoState.Action(Action("show", payload: "everything")) }
        #expect(throws: YaiaError.self) { try TodoState.Action(Action("toggle", payload: "1")) }
    }

    @Test("after many changes the view model is the one made from scratch")
    func derivedMatchesFresh() throws {
        var state = try TodoState(args: ["todos": .array(.init((1...300).map { i -> JSON in
            ["id": .int(Int64(i)), "title": .string("t\(i)"), "done": .bool(i % 2 == 0)]
        }))])
        _ = state.viewModel
        for i in 1...120 {
            switch i % 4 {
            case 0: _ = state.reduce(.toggle(Int64(i * 7 % 300 + 1)))
            case 1: _ = state.reduce(.add("new \(i)"))
            case 2: _ = state.reduce(.remove(Int64(i * 13 % 300 + 1)))
            default: _ = state.reduce(.draft("d\(i)"))
            }
            if i % 10 == 0 {
                let fresh = try TodoState(json: state.json)
                #expect(state.viewModel.json == fresh.viewModel.json)
            }
        }
    }
}
