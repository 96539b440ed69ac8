import Testing
import YaiaCore
import YaiaKit

// A changed leaf's size, counts and key range follow from what it knew
// before and the elements that changed (JSONArrayEdit.swift): each must be
// what counting afresh gives, after one change or many, shared or not, and
// a change to one element must not read the others.

private func item(_ id: Int, done: Bool = false) -> JSON {
    ["id": .int(Int64(id)), "title": .string("item \(id)"), "done": .bool(done)]
}

private final class Rule {}

/// A random change: an element replaced (its key kept or not, deeper or
/// shallower), appended, inserted or removed.
private func change(_ list: inout JSONArray, _ g: inout SplitMix64, next: inout Int) {
    let i = list.isEmpty ? 0 : g.below(list.count)
    switch g.below(7) {
    case 0 where !list.isEmpty:
        if case .object(var o) = list[i] {
            o["done"] = .bool(!(o["done"]?.boolValue ?? false))
            list[i] = .object(o)
        }
    case 1 where !list.isEmpty:
        list[i] = item(g.below(next + 1), done: g.below(2) == 0)
    case 2 where !list.isEmpty:
        // Deeper than the others, or back to flat: the leaf's nesting moves.
        list[i] = g.below(2) == 0 ? ["id": .int(Int64(g.below(next))), "tags": [["deep": true]]] : .int(Int64(i))
    case 3:
        list.append(item(next, done: g.below(3) == 0))
        next += 1
    case 4:
        list.insert(item(next), at: g.below(list.count + 1))
        next += 1
    case 5 where !list.isEmpty:
        list.remove(at: i)
    default:
        if !list.isEmpty, case .object(var o) = list[i] {
            o["title"] = .string(String(repeating: "t", count: g.below(40)))
            list[i] = .object(o)
        }
    }
}

private func undone(_ run: UnsafeBufferPointer<JSON>) -> Int {
    run.reduce(0) { $0 + ($1["done"] == .bool(false) ? 1 : 0) }
}

@Suite("JSON arrays: facts that follow a change")
struct JSONArrayEditTests {
    @Test("size, count and key range after runs of changes equal those counted afresh", arguments: [0, 1, 3, 12])
    func runsOfChanges(between: Int) {
        var g = SplitMix64(seed: UInt64(40 + between))
        var list = JSONArray((0..<1500).map { item($0, done: $0 % 3 == 0) })
        var next = 1500
        let rule = Rule()
        var kept: [JSONArray] = []
        for _ in 0..<150 {
            // The facts known, then `between` changes (past what an edit keeps at 12).
            _ = list.size(levels: .max, limit: .max)
            _ = list.count(owner: rule, slot: 0, undone)
            var read = 0
            _ = list.candidates(field: "id", key: .int(0), read: &read)
            if g.below(2) == 0 { kept.append(list) }
            for _ in 0...between { change(&list, &g, next: &next) }
            let fresh = JSONArray(list.elements)
            #expect(list.size(levels: .max, limit: .max) == fresh.size(levels: .max, limit: .max))
            #expect(list.size(levels: 2, limit: .max) == fresh.size(levels: 2, limit: .max))
            #expect(list.count(owner: rule, slot: 0, undone) == list.elements.withUnsafeBufferPointer(undone))
            let key = JSON.int(Int64(g.below(next + 1)))
            let found = Set(list.candidates(field: "id", key: key, read: &read))
            for (i, element) in list.enumerated() where element["id"] == key {
                #expect(found.contains(i), "element \(i) with id \(key)")
            }
        }
        // Versions kept from before each change keep their own facts.
        for old in kept {
            #expect(old.size(levels: .max, limit: .max) == JSONArray(old.elements).size(levels: .max, limit: .max))
            #expect(old.count(owner: rule, slot: 0, undone) == old.elements.withUnsafeBufferPointer(undone))
        }
    }

    @Test("a change to one element reads that element, not its leaf")
    func oneChangeReadsOneElement() {
        var list = JSONArray((0..<10_000).map { item($0) })
        let rule = Rule()
        var read = 0
        #expect(list.count(owner: rule, slot: 0, undone) == 10_000)
        _ = list.candidates(field: "id", key: .int(5000), read: &read)
        let before = list
        list[5000] = item(5000, done: true)
        list.append(item(10_000))
        // The count reads the element that left and the two that came.
        var seen = 0
        #expect(list.count(owner: rule, slot: 0) { run in seen += run.count; return undone(run) } == 10_000)
        #expect(seen <= 3, "read \(seen) elements")
        // The key range follows from the one element changed; the candidates are that
        // leaf's (a leaf holds 32 at most), read once: not the leaf's keys twice.
        read = 0
        #expect(list.candidates(field: "id", key: .int(5000), read: &read) == [5000])
        #expect(read <= 34, "read \(read) keys")
        #expect(before.count(owner: rule, slot: 0, undone) == 10_000)
    }
}
