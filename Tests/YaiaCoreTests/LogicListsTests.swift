import Foundation
import Testing
import YaiaCore
import YaiaKit

// The paths that make a change to a big list cost what it changes: sizes,
// key ranges and counts kept by the list's tree nodes, `update`, and view
// members kept while their inputs are unchanged. Each must give exactly
// what the general path gives, over seeded random changes.

private func todos(_ n: Int, _ g: inout SplitMix64) -> [JSON] {
    (0..<n).map { i in
        ["id": .int(Int64(i * 2)), "title": .string("item \(i)"), "done": .bool(g.below(3) == 0)]
    }
}

/// One random change to a list, as a scene makes them: an item replaced,
/// appended, inserted or removed; sometimes an item with a string id or none.
private func change(_ list: inout JSONArray, _ g: inout SplitMix64, next: inout Int) {
    let i = list.isEmpty ? 0 : g.below(list.count)
    switch g.below(6) {
    case 0 where !list.isEmpty:
        list[i] = ["id": .int(Int64(g.below(next + 1))), "done": .bool(g.below(2) == 0)]
    case 1:
        list.append(["id": .int(Int64(next)), "done": false])
        next += 1
    case 2:
        list.insert(g.below(8) == 0 ? ["id": .string("x\(next)"), "done": true] : ["done": true], at: g.below(list.count + 1))
    case 3 where !list.isEmpty:
        list.remove(at: i)
    default:
        if !list.isEmpty, case .object(var o) = list[i] {
            o["done"] = .bool(!(o["done"]?.boolValue ?? false))
            list[i] = .object(o)
        }
    }
}

@Suite("Logic: lists changed in part")
struct LogicListsTests {
    @Test("a tree's remembered size is the size counted afresh", arguments: [33, 700, 2000])
    func sizes(n: Int) {
        var g = SplitMix64(seed: UInt64(n))
        var list = JSONArray(todos(n, &g))
        var next = 2 * n
        for _ in 0..<200 {
            let before = list
            _ = before.size(levels: .max, limit: .max)
            change(&list, &g, next: &next)
            let fresh = JSONArray(list.elements)
            #expect(list.size(levels: .max, limit: .max) == fresh.size(levels: .max, limit: .max))
            #expect(before.size(levels: .max, limit: .max) == JSONArray(before.elements).size(levels: .max, limit: .max))
        }
        // Within bounds as a walk is: too big, too deep.
        #expect(list.size(levels: .max, limit: 10) == .tooBig)
        #expect(list.size(levels: 1, limit: .max) == .tooDeep)
    }

    @Test("a key's candidates hold every object with that key", arguments: [10, 33, 2000])
    func candidates(n: Int) throws {
        var g = SplitMix64(seed: UInt64(n) &+ 1)
        var list = JSONArray(todos(n, &g))
        var next = 2 * n
        for _ in 0..<200 {
            change(&list, &g, next: &next)
            let key: JSON = g.below(10) == 0 ? .string("x\(g.below(next))") : .int(Int64(g.below(next + 2)))
            var read = 0
            let found = Set(list.candidates(field: "id", key: key, read: &read))
            for (i, item) in list.enumerated() where item["id"] == key {
                #expect(found.contains(i))
            }
        }
    }

    @Test("update, count and the extras give what map, filter and a copy give", arguments: [5, 40, 1000])
    func logic(n: Int) throws {
        var g = SplitMix64(seed: UInt64(n) &+ 2)
        var list = JSONArray(todos(n, &g))
        var next = 2 * n
        let update = try LogicRule(#"{"update": [{"var": "list"}, "id", {"var": "key"}, {"set": [{"var": ""}, "done", {"!": {"var": "done"}}]}]}"#.json)
        let map = try LogicRule(#"{"map": [{"var": "list"}, {"if": [{"===": [{"var": "id"}, {"root": "key"}]}, {"set": [{"var": ""}, "done", {"!": {"var": "done"}}]}, {"var": ""}]}]}"#.json)
        let count = try LogicRule(#"{"length": {"filter": [{"var": "list"}, {"!": {"var": "done"}}]}}"#.json)
        // Not a `length` of a `filter` as written: counted element by element.
        let plainCount = try LogicRule(#"{"length": {"if": [true, {"filter": [{"var": "list"}, {"!": {"var": "done"}}]}]}}"#.json)
        let append = try LogicRule(#"{"append": [{"var": "list"}, {"var": "key"}]}"#.json)
        let without = try LogicRule(#"{"without": [{"var": "list"}, "id", {"var": "key"}]}"#.json)
        for _ in 0..<150 {
            change(&list, &g, next: &next)
            let key: JSON = g.below(10) == 0 ? .double(Double(g.below(next))) : .int(Int64(g.below(next + 2)))
            let data: JSON = ["list": .array(list), "key": key]
            #expect(try update.evaluate(data) == map.evaluate(data))
            #expect(try count.evaluate(data) == plainCount.evaluate(data))
            #expect(try append.evaluate(data) == .array(JSONArray(list.elements + [key])))
            #expect(try without.evaluate(data) == .array(JSONArray(list.elements.filter { $0["id"] != key })))
            if g.below(4) == 0, case .array(let updated) = try update.evaluate(data) { list = updated }
        }
        #expect(try update.evaluate(["list": .null, "key": 1]) == [])
        #expect(yaiaError { () throws(YaiaError) in try update.evaluate(["list": 3, "key": 1]) }?.code == .logicError)
    }

    @Test("a count kept by a node is the body's, not another rule's")
    func countsPerRule() throws {
        var g = SplitMix64(seed: 9)
        let list = JSON.array(JSONArray(todos(500, &g)))
        let left = try LogicRule(#"{"length": {"filter": [{"var": ""}, {"!": {"var": "done"}}]}}"#.json)
        let done = try LogicRule(#"{"length": {"filter": [{"var": ""}, {"var": "done"}]}}"#.json)
        let byRoot = try LogicRule(#"{"length": {"filter": [{"var": "list"}, {"===": [{"var": "done"}, {"root": "want"}]}]}}"#.json)
        let l = try left.evaluate(list), d = try done.evaluate(list)
        #expect(l.int64Value.map { $0 + (d.int64Value ?? 0) } == 500)
        #expect(try left.evaluate(list) == l && done.evaluate(list) == d)
        // A body that reads the rule's data is counted anew each time.
        #expect(try byRoot.evaluate(["list": list, "want": false]) == l)
        #expect(try byRoot.evaluate(["list": list, "want": true]) == d)
    }

    @Test("a count the budget stops is the budget's error, and what it kept is whole")
    func countOutOfBudget() throws {
        var g = SplitMix64(seed: 5)
        let items = todos(3000, &g)
        let list = JSON.array(JSONArray(items))
        let left = try LogicRule(#"{"length": {"filter": [{"var": ""}, {"!": {"var": "done"}}]}}"#.json)
        var budget = LogicBudget(base: 500, perUnit: 0)
        #expect(yaiaError { () throws(YaiaError) in try left.evaluate(list, budget: &budget) }?.code == .logicBudgetExceeded)
        // With room, the count is right: the nodes counted before the stop kept whole counts.
        #expect(try left.evaluate(list) == .int(Int64(items.filter { $0["done"] == false }.count)))
    }

    @Test("a count kept by a node keeps neither its rule nor the list alive")
    func countsHoldNoRule() throws {
        final class Owner { var list: JSON = .null }
        weak var gone: Owner?
        do {
            var g = SplitMix64(seed: 11)
            let owner = Owner()
            guard case .array(let items) = JSON.array(JSONArray(todos(2000, &g))) else { return }
            owner.list = .array(items)
            #expect(items.count(owner: owner, slot: 0) { $0.count } == 2000)
            gone = owner
        }
        #expect(gone == nil)
    }

    @Test("view members kept for unchanged inputs equal a view computed afresh")
    func documentView() throws {
        let scene = try TodoDocument.scene()
        var g = SplitMix64(seed: 11)
        var s = try scene.open(args: ["todos": TodoDocument.items(600)])
        for step in 0..<120 {
            let action: Action
            switch g.below(7) {
            case 0: action = Action("add", payload: .string("new \(step)"))
            case 1: action = Action("remove", payload: .int(Int64(g.below(700))))
            case 2: action = Action("show", payload: .string(["all", "active", "done"][g.below(3)]))
            case 3: action = Action("draft", payload: .string("d\(g.below(3))"))
            default: action = Action("toggle", payload: .int(Int64(g.below(700))))
            }
            _ = try s.reduce(action)
            #expect(try scene.restore(state: s.json).viewModel == s.viewModel)
        }
    }
}

private extension String {
    var json: JSON { get throws { try JSONParser.parse(Array(utf8)) } }
}

@Suite("Logic: operators evaluated once per evaluation")
struct LogicOnceTests {
    @Test("an operator in a body that reads no element gives, once, what it gave for each")
    func invariant() throws {
        let search = try LogicRule(#"{"filter": [{"var": "notes"}, {"or": [{"in": [{"lower": {"root": "q"}}, {"lower": {"var": "title"}}]}, {"in": [{"lower": {"root": "q"}}, {"lower": {"var": "body"}}]}]}]}"#.json)
        let notes: JSON = [["title": "Buy milk", "body": ""], ["title": "Bread", "body": "no MILK"], ["title": "Tea", "body": "Ä"], ["title": "ÉCLAIR", "body": ""]]
        #expect(try search.evaluate(["q": "MiLK", "notes": notes]) == [["title": "Buy milk", "body": ""], ["title": "Bread", "body": "no MILK"]])
        #expect(try search.evaluate(["q": "éc", "notes": notes]) == [["title": "ÉCLAIR", "body": ""]])
        #expect(try search.evaluate(["q": "", "notes": notes]) == notes)
        // `missing` in a body reads the element, as `var` does: evaluated for each.
        let missing = try LogicRule(#"{"map": [{"var": "xs"}, {"missing": ["a"]}]}"#.json)
        #expect(try missing.evaluate(["xs": [["a": 1], ["b": 2]]]) == [[], ["a"]])
        // A nested body that reads its own element still depends on nothing outer; kept per element all the same.
        let nested = try LogicRule(#"{"map": [{"var": "xs"}, {"+": [{"var": ""}, {"reduce": [{"root": "ys"}, {"+": [{"var": "current"}, {"var": "accumulator"}]}, 0]}]}]}"#.json)
        #expect(try nested.evaluate(["xs": [1, 2], "ys": [10, 20]]) == [31, 32])
    }

    @Test("the invariant part is paid for once")
    func steps() throws {
        let list = JSON.array(JSONArray((0..<200).map { JSON($0) }))
        let rule = try LogicRule(#"{"map": [{"var": "xs"}, {"cat": [{"lower": {"root": "q"}}, {"var": ""}]}]}"#.json)
        var budget = LogicBudget(base: 100_000, perUnit: 0)
        _ = try rule.evaluate(["xs": list, "q": "ABC"], budget: &budget)
        // Per element: its step, cat, the once and the var (4); lower and
        // root once in all. Evaluated for each element, they would make 5.
        #expect(100_000 - budget.left < 200 * 5)
    }
}
