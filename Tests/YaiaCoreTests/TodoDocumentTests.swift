import Foundation
import Testing
import YaiaCore
import YaiaKit

// The todo document (Examples/todo-documents/todo.json): a list of 100,000
// items takes every action within the default budget.

enum TodoDocument {
    static func scene() throws -> DocumentScene {
        // #filePath is <root>/Tests/YaiaCoreTests/TodoDocumentTests.swift.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("Examples/todo-documents/todo.json"))
        return try DocumentScene(JSONParser.parse(Array(data)))
    }

    /// `count` items, ids 1...count, every third done.
    static func items(_ count: Int) -> JSON {
        .array((1...count).map { i in ["id": .int(Int64(i)), "title": .string("Todo number \(i)"), "done": .bool(i % 3 == 1)] })
    }

    static func send(_ scene: inout DocumentSceneValue, _ type: String, _ payload: JSON? = nil) throws {
        _ = try scene.reduce(Action(type, payload: payload))
    }

    static func item(_ scene: DocumentSceneValue, _ id: Int) -> JSON? {
        scene.json["todos"]?.arrayValue?.first { $0["id"] == .int(Int64(id)) }
    }
}

@Suite("Scene documents: the todo list (Examples/todo-documents)")
struct TodoDocumentTests {
    @Test("a few items: add, toggle, remove, the filter and the count left")
    func small() throws {
        var s = try TodoDocument.scene().open(args: ["todos": TodoDocument.items(3)])
        #expect(s.viewModel["left"] == 2 && s.viewModel["total"] == 3)
        try TodoDocument.send(&s, "add", "   ")
        #expect(s.viewModel["error"] == "A todo needs a title" && s.viewModel["total"] == 3)
        try TodoDocument.send(&s, "add", "  Buy milk ")
        #expect(TodoDocument.item(s, 4) == ["id": 4, "title": "Buy milk", "done": false] && s.viewModel["error"] == .null)
        try TodoDocument.send(&s, "toggle", 2)
        #expect(TodoDocument.item(s, 2)?["done"] == true && s.viewModel["left"] == 2)
        try TodoDocument.send(&s, "show", "active")
        #expect(s.viewModel["items"]?.arrayValue?.compactMap { $0["id"]?.int64Value } == [3, 4])
        try TodoDocument.send(&s, "show", "done")
        #expect(s.viewModel["items"]?.arrayValue?.compactMap { $0["id"]?.int64Value } == [1, 2])
        try TodoDocument.send(&s, "remove", 3)
        try TodoDocument.send(&s, "clearDone")
        try TodoDocument.send(&s, "show", "all")
        #expect(s.viewModel["items"] == [["id": 4, "title": "Buy milk", "done": false]])
        #expect(s.viewModel["left"] == 1 && s.viewModel["error"] == .null)
    }

    // The library as shipped takes 100,000 items (Tests/python/test_todo_documents.py);
    // here, in the sanitized debug build, 25,000: past the 16,000 that once ran out of steps.
    @Test("25,000 items open and take every action with the default budget")
    func manyItems() throws {
        let scene = try TodoDocument.scene()
        #expect(scene.budget == LogicRule.defaultBudget)
        let n = 25_000
        // Ids 1, 4, ..., 25,000 are done.
        let done = (n + 2) / 3
        var s = try scene.open(args: ["todos": TodoDocument.items(n)])
        #expect(s.viewModel["total"] == .int(Int64(n)) && s.viewModel["left"] == .int(Int64(n - done)))
        try TodoDocument.send(&s, "toggle", .int(Int64(n)))
        #expect(TodoDocument.item(s, n)?["done"] == false && s.viewModel["left"] == .int(Int64(n - done + 1)))
        try TodoDocument.send(&s, "add", "One more")
        #expect(TodoDocument.item(s, n + 1)?["title"] == "One more" && s.viewModel["total"] == .int(Int64(n + 1)))
        try TodoDocument.send(&s, "remove", 2)
        #expect(TodoDocument.item(s, 2) == nil && s.viewModel["total"] == .int(Int64(n)) && s.viewModel["left"] == .int(Int64(n - done + 1)))
        try TodoDocument.send(&s, "show", "active")
        #expect(s.viewModel["items"]?.arrayValue?.count == n - done + 1)
        try TodoDocument.send(&s, "show", "done")
        #expect(s.viewModel["items"]?.arrayValue?.count == done - 1)
        try TodoDocument.send(&s, "clearDone")
        #expect(s.viewModel["items"] == [] && s.viewModel["total"] == .int(Int64(n - done + 1)))
        // Restored from a snapshot of its state, as a runtime restores it.
        var restored = try scene.restore(state: s.json)
        try TodoDocument.send(&restored, "toggle", 3)
        #expect(restored.viewModel["left"] == .int(Int64(n - done)))
    }

    @Test("the budget still stops work that grows faster than the list, located at its expression")
    func runaway() throws {
        var doc = try JSONParser.parse(Array(#"""
        {"yaia": 1, "scene": "t/pairs", "args": {"todos": {"default": []}}, "state": {"todos": {"var": "args.todos"}, "pairs": 0},
         "actions": {"count": {"set": {"pairs": {"length": {"filter": [{"var": "state.todos"},
            {"some": [{"root": "state.todos"}, {"===": [{"var": "id"}, 0]}]}]}}}}},
         "view": {"left": {"length": {"filter": [{"var": "state.todos"}, {"!": {"var": "done"}}]}}}}
        """#.utf8))
        var s = try DocumentScene(doc).open(args: ["todos": TodoDocument.items(2_000)])
        let error = try sendError(s, #"{"type": "count"}"#)
        #expect(error?.code == .logicBudgetExceeded)
        #expect(error?.at == "/actions/count/set/pairs")
        #expect(error?.message.contains(#"{"limits": {"logic_steps": "#) == true)
        // The view model's own budget, located as well: with no share of the data, 2,000 items are too many.
        doc = try JSONParser.parse(Array(#"{"yaia": 1, "scene": "t/view", "state": {"todos": []}, "actions": {"clear": {"set": {"todos": []}}}, "view": {"left": {"length": {"filter": [{"var": "state.todos"}, {"!": {"var": "done"}}]}}}}"#.utf8))
        var strict = try DocumentScene(doc, budget: 1000)
        strict.stepsPerUnit = 0
        let viewError = yaiaError { () throws(YaiaError) in try strict.restore(state: ["todos": TodoDocument.items(2_000)]) }
        #expect(viewError?.code == .logicBudgetExceeded && viewError?.at == "/view/left")
        s = try DocumentScene(doc, budget: 1000).restore(state: ["todos": TodoDocument.items(2_000)])
        #expect(s.viewModel["left"] == 1333)
    }
}
