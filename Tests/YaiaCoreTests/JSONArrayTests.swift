import Foundation
import Testing
import YaiaKit

/// SplitMix64: a seeded generator, so that every run draws the same values.
private struct Seeded: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private func items(_ n: Int, from start: Int = 0) -> [JSON] {
    (start..<start + n).map { ["id": JSON($0), "title": JSON("item \($0)")] }
}

@Suite("JSONArray")
struct JSONArrayTests {
    /// The array against a plain [JSON] doing the same edits, across leaf
    /// and inner node boundaries, with an earlier copy that must not change.
    @Test("random edits agree with [JSON]", arguments: [0, 1, 31, 32, 33, 700, 5000])
    func model(start: Int) {
        var rng = Seeded(state: UInt64(start) &+ 7)
        var model = items(start)
        var array = JSONArray(model)
        var next = start
        for step in 0..<400 {
            let snapshot = array
            let snapshotModel = model
            let i = model.isEmpty ? 0 : Int.random(in: 0..<model.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0:
                array.append(JSON(next)); model.append(JSON(next))
            case 1:
                let at = Int.random(in: 0...model.count, using: &rng)
                array.insert(JSON(next), at: at); model.insert(JSON(next), at: at)
            case 2 where !model.isEmpty:
                #expect(array.remove(at: i) == model.remove(at: i))
            case 3 where !model.isEmpty:
                array[i] = JSON(next); model[i] = JSON(next)
            case 4:
                let lower = Int.random(in: 0...model.count, using: &rng)
                let upper = Int.random(in: lower...min(model.count, lower + 200), using: &rng)
                let new = items(Int.random(in: 0...150, using: &rng), from: next)
                array.replaceSubrange(lower..<upper, with: new); model.replaceSubrange(lower..<upper, with: new)
            default:
                // Removing in bulk shrinks trees back through their merges.
                let n = min(model.count, Int.random(in: 0...100, using: &rng))
                for _ in 0..<n { array.removeLast(); model.removeLast() }
            }
            next += 1
            #expect(array.count == model.count)
            if !model.isEmpty {
                let k = Int.random(in: 0..<model.count, using: &rng)
                #expect(array[k] == model[k])
            }
            if step % 25 == 0 || model.count < 200 {
                #expect(Array(array) == model, "after step \(step)")
                #expect(Array(snapshot) == snapshotModel, "a copy changed at step \(step)")
            }
        }
        #expect(Array(array) == model)
        #expect(array.elements == model)
        #expect(array == JSONArray(model))
    }

    @Test("mutating a copy leaves the original, and the copy's other elements shared")
    func persistence() {
        let original = JSONArray(items(10_000))
        var copy = original
        copy[5000] = "changed"
        copy.append("end")
        copy.remove(at: 3)
        #expect(original[5000] == ["id": 5000, "title": "item 5000"])
        #expect(original.count == 10_000)
        #expect(original[3] == ["id": 3, "title": "item 3"])
        #expect(copy[4999] == "changed")
        #expect(copy.count == 10_000)
        #expect(copy.last == "end")
    }

    @Test("equal arrays are equal and hash alike however they were built")
    func equalityAndHashing() {
        let model = items(3000)
        let built = JSONArray(model)
        var appended = JSONArray()
        for e in model { appended.append(e) }
        var inserted = JSONArray()
        for e in model.reversed() { inserted.insert(e, at: 0) }
        for other in [appended, inserted] {
            #expect(built == other)
            #expect(built.hashValue == other.hashValue)
            #expect(JSON.array(built) == JSON.array(other))
            #expect(JSON.array(built).hashValue == JSON.array(other).hashValue)
        }
        #expect(JSONArray([1, 2]) == JSONArray([1.0, 2]))
        #expect(JSONArray([1, 2]).hashValue == JSONArray([1.0, 2]).hashValue)
        var changed = built
        changed[2999] = "x"
        #expect(built != changed)
        #expect(built != JSONArray(model.dropLast()))
        #expect(JSONArray() == [])
    }

    @Test("a big array reads back from its text and through Codable")
    func roundTrips() throws {
        let value = JSON.array(items(3_000))
        let text = value.serialized()
        #expect(text.hasPrefix("[{\"id\":0,\"title\":\"item 0\"},{\"id\":1,"))
        #expect(text == JSON.array(JSONArray(items(3_000)).elements).serialized())
        let parsed = try JSONParser.parse(text)
        #expect(parsed == value)
        #expect(parsed.serialized() == text)
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSON.self, from: data) == value)
        let array = try #require(value.arrayValue)
        #expect(try JSONDecoder().decode(JSONArray.self, from: JSONEncoder().encode(array)) == array)
    }

    @Test("patches index a big array: add, remove, replace and test in place")
    func patches() throws {
        let doc: JSON = ["items": .array(items(10_000))]
        let ops: [JSONPatch.Operation] = [
            .replace(path: "/items/7000/title", value: "seven"),
            .add(path: "/items/100", value: "inserted"),
            .remove(path: "/items/0"),
            .add(path: "/items/-", value: "last"),
            .test(path: "/items/99", value: "inserted"),
        ]
        let out = try JSONPatch.apply(ops, to: doc)
        var model = items(10_000)
        model[7000] = ["id": 7000, "title": "seven"]
        model.insert("inserted", at: 100)
        model.remove(at: 0)
        model.append("last")
        #expect(out == ["items": .array(model)])
    }

    @Test("a diff of a big array and its copy with one element set walks a path, not the array")
    func diffSkipsShared() {
        let old = JSONArray(items(100_000))
        var new = old
        new[61_234] = ["id": 61_234, "title": "renamed"]
        var differ = JSONDiffer()
        differ.diff(.array(old), .array(new), at: "/list")
        #expect(differ.operations == [.replace(path: "/list/61234/title", value: "renamed")])
        #expect(differ.visited < 200, "visited \(differ.visited) nodes")

        var appended = old
        appended.append("new")
        var removed = old
        removed.remove(at: 5)
        var inserted = old
        inserted.insert("new", at: 99_000)
        let cases: [(JSONArray, [JSONPatch.Operation])] = [
            (appended, [.add(path: "/100000", value: "new")]),
            (removed, [.remove(path: "/5")]),
            (inserted, [.add(path: "/99000", value: "new")]),
        ]
        for (changed, expected) in cases {
            var d = JSONDiffer()
            d.diff(.array(old), .array(changed), at: "")
            #expect(d.operations == expected)
            #expect(d.visited < 400, "visited \(d.visited) nodes")
            // The general walk over arrays built apart gives the same operations.
            #expect(JSONPatch.diff(from: .array(old.elements), to: .array(changed.elements)) == expected)
        }
    }
}
