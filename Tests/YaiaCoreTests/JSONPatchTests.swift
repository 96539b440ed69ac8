import Testing
import YaiaKit
import YaiaCore

/// SplitMix64: a seeded generator, so that every run draws the same values.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random values and random edits of them, over a small alphabet of keys
/// (escaped ones among them) so that two values share members often.
private struct RandomJSON {
    var rng: SeededGenerator
    static let keys = ["a", "b", "c", "a/b", "m~n", "", "0", "-"]

    mutating func value(depth: Int) -> JSON {
        let kind = Int.random(in: 0..<(depth > 0 ? 9 : 6), using: &rng)
        switch kind {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64.random(in: -3...3, using: &rng))
        case 3: return .double([0.5, -0.0, 1.0, 2.25].randomElement(using: &rng) ?? 0.5)
        case 4, 5: return .string(["", "x", "y", "é"].randomElement(using: &rng) ?? "")
        case 6: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in value(depth: depth - 1) })
        default:
            var o = JSONObject()
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                o[Self.keys.randomElement(using: &rng) ?? "a"] = value(depth: depth - 1)
            }
            return .object(o)
        }
    }

    /// `v` with one random change somewhere inside (or the same value).
    mutating func edit(_ v: JSON, depth: Int) -> JSON {
        switch v {
        case .array(var a):
            let choice = Int.random(in: 0..<4, using: &rng)
            if choice == 0 || a.isEmpty { a.insert(value(depth: depth), at: Int.random(in: 0...a.count, using: &rng)) }
            else if choice == 1 { a.remove(at: Int.random(in: 0..<a.count, using: &rng)) }
            else { let i = Int.random(in: 0..<a.count, using: &rng); a[i] = edit(a[i], depth: depth) }
            return .array(a)
        case .object(var o):
            let key = Self.keys.randomElement(using: &rng) ?? "a"
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: o[key] = nil
            case 1: o[key] = value(depth: depth)
            default: if let child = o[key] { o[key] = edit(child, depth: depth) } else { o[key] = value(depth: depth) }
            }
            return .object(o)
        default:
            return value(depth: depth)
        }
    }
}

/// A list of `n` items, as a view model shows it.
func todoItems(_ n: Int) -> [JSON] {
    (0..<n).map { i in .object(["id": .int(Int64(i)), "title": .string("item \(i)"), "done": false]) }
}

private func applied(_ ops: [JSONPatch.Operation], to v: JSON) -> JSON? {
    try? JSONPatch.apply(ops, to: v)
}

@Suite("JSON Patch: diff")
struct JSONPatchDiffTests {
    @Test("applying the diff of random values gives the new value, byte for byte", arguments: [1, 2, 3, 4] as [UInt64])
    func randomPairs(seed: UInt64) throws {
        var random = RandomJSON(rng: SeededGenerator(seed: seed))
        for round in 0..<250 {
            let a = random.value(depth: 4)
            let b = round % 2 == 0 ? random.value(depth: 4) : random.edit(a, depth: 2)
            let ops = JSONPatch.diff(from: a, to: b)
            let result = try #require(applied(ops, to: a), "\(a) -> \(b): \(ops)")
            #expect(result.serialized() == b.serialized(), "\(a) -> \(b): \(ops)")
            // The wire form reads back as the same operations.
            #expect(try JSONPatch.operations(JSONParser.parse(JSONPatch.json(ops).serialized())) == ops)
            if a == b && a.serialized() == b.serialized() { #expect(ops.isEmpty) }
        }
    }

    @Test("a change to one element of 10,000 gives one operation under that element")
    func oneElement() {
        var list = todoItems(10_000)
        let old: JSON = ["title": "todo", "items": .array(list)]
        list[1234] = ["id": 1234, "title": "item 1234", "done": true]
        let new: JSON = ["title": "todo", "items": .array(list)]
        #expect(JSONPatch.diff(from: old, to: new) == [.replace(path: "/items/1234/done", value: true)])
    }

    @Test("an append is one add at the end; an insert and a removal one operation each")
    func appendInsertRemove() {
        let list = todoItems(10_000)
        let extra: JSON = ["id": -1, "title": "new", "done": false]
        #expect(JSONPatch.diff(from: .array(list), to: .array(list + [extra])) == [.add(path: "/10000", value: extra)])
        var inserted = list
        inserted.insert(extra, at: 5000)
        #expect(JSONPatch.diff(from: .array(list), to: .array(inserted)) == [.add(path: "/5000", value: extra)])
        var removed = list
        removed.remove(at: 17)
        #expect(JSONPatch.diff(from: .array(list), to: .array(removed)) == [.remove(path: "/17")])
        // Emptied: one replace, not 10,000 removals.
        #expect(JSONPatch.diff(from: .array(list), to: .array([])) == [.replace(path: "", value: .array([]))])
    }

    @Test("keys are escaped in paths: ~ as ~0, / as ~1")
    func escaping() {
        let old: JSON = ["a/b": 1, "m~n": ["x": 1]]
        let new: JSON = ["a/b": 2, "m~n": ["x": 2]]
        let ops = JSONPatch.diff(from: old, to: new)
        #expect(ops == [.replace(path: "/a~1b", value: 2), .replace(path: "/m~0n/x", value: 2)])
        #expect(applied(ops, to: old) == new)
    }

    @Test("numbers of another kind are replaced: 1 and 1.0 print differently")
    func numberKinds() {
        #expect(JSONPatch.diff(from: ["n": 1], to: ["n": 1.0]) == [.replace(path: "/n", value: 1.0)])
        #expect(JSONPatch.diff(from: ["n": 1], to: ["n": 1]).isEmpty)
    }

    @Test("a list both sides share costs one comparison, whatever its size")
    func sharedListIsNotWalked() {
        let list = JSON.array(todoItems(10_000))
        let old: JSON = ["count": 1, "items": list, "title": "todo"]
        let new: JSON = ["count": 2, "items": list, "title": "todo"]
        var differ = JSONDiffer()
        differ.diff(old, new, at: "")
        #expect(differ.operations == [.replace(path: "/count", value: 2)])
        #expect(differ.visited <= 10, "visited \(differ.visited) nodes")
    }

    @Test("a changed element in a shared list costs one comparison per element, not a walk of each")
    func sharedElements() {
        var list = todoItems(10_000)
        let old = JSON.array(list)
        list[9000] = ["id": 9000, "title": "renamed", "done": false]
        var shared = JSONDiffer()
        shared.diff(old, .array(list), at: "")
        #expect(shared.operations == [.replace(path: "/9000/title", value: "renamed")])
        #expect(shared.visited <= 10_000 + 20, "visited \(shared.visited) nodes")

        // The same lists built apart share nothing: every item is walked.
        var apart = JSONDiffer()
        var rebuilt = todoItems(10_000)
        rebuilt[9000] = ["id": 9000, "title": "renamed", "done": false]
        apart.diff(old, .array(rebuilt), at: "")
        #expect(apart.operations == shared.operations)
        #expect(apart.visited >= 4 * 10_000, "visited \(apart.visited) nodes")
    }

    @Test("storage identity: a copy shares, a changed copy or an equal value built apart does not")
    func storageIdentity() {
        let a = JSON.array(todoItems(100))
        let copy = a
        #expect(a.sharesStorage(with: copy))
        guard case .array(var changed) = a else { return }
        changed[0] = .null
        #expect(!a.sharesStorage(with: .array(changed)))
        #expect(!a.sharesStorage(with: .array(todoItems(100))))
        let o: JSON = ["k": a]
        #expect(o.sharesStorage(with: o))
        #expect(!o.sharesStorage(with: ["k": a]))
        #expect(!JSON.int(1).sharesStorage(with: .int(1)), "scalars are compared, not identified")
    }

    @Test("values nested past the depth limit are replaced whole, not walked")
    func deepValues() {
        var old: JSON = 0
        var new: JSON = 1
        for _ in 0..<50 { old = [old]; new = [new] }
        var differ = JSONDiffer(maxDepth: 10)
        differ.diff(old, new, at: "")
        #expect(differ.operations.count == 1)
        #expect(differ.operations.first?.path == "/0/0/0/0/0/0/0/0/0/0")
        #expect(applied(differ.operations, to: old) == new)
    }

    @Test("a list whose changes are scattered (a filter narrowed) is replaced whole, once past one operation per element")
    func scatteredChangesReplaceTheList() {
        let all = todoItems(1_000)
        let old: JSON = ["items": .array(all)]
        let narrowed: JSON = ["items": .array(all.enumerated().filter { $0.offset % 10 == 3 }.map(\.element))]
        let ops = JSONPatch.diff(from: old, to: narrowed)
        #expect(ops.count == 1)
        #expect(ops.first?.path == "/items")
        #expect(applied(ops, to: old) == narrowed)
        // A few scattered changes stay a few operations.
        var few = all
        few[10] = ["id": 10, "title": "ten", "done": true]
        few.remove(at: 500)
        let small = JSONPatch.diff(from: old, to: ["items": .array(few)])
        #expect(small.count <= 4 && small.allSatisfy { $0.path != "/items" })
        #expect(applied(small, to: old) == ["items": .array(few)])
    }

    @Test("a list of ids a filter widens is replaced whole once its element operations pass half its length")
    func widenedIdsReplaceTheList() {
        let ids = (0..<1_000).map { JSON.int(Int64($0)) }
        // From every other id to all of them (a search's character deleted):
        // the pairs shift, each an operation carrying an id, then the adds;
        // fewer operations than ids, but each weighs more than an id.
        let half: JSON = ["shown": .array(JSONArray(ids.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)))]
        let all: JSON = ["shown": .array(JSONArray(ids))]
        let ops = JSONPatch.diff(from: half, to: all)
        #expect(ops.count == 1 && ops.first?.path == "/shown")
        #expect(applied(ops, to: half) == all)
        // Ten ids dropped near the end: ten removes, the list not written.
        let tail: JSON = ["shown": .array(JSONArray(ids.prefix(990) + ids.suffix(0)))]
        let few = JSONPatch.diff(from: ["shown": .array(JSONArray(ids))], to: tail)
        #expect(few.count == 10 && few.allSatisfy { $0.path != "/shown" })
    }
}
