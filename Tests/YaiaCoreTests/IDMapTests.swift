import Testing
@testable import YaiaCore

@Suite struct IDMapTests {
    @Test func storesReplacesAndRemovesByID() {
        var map = IDMap<String>()
        #expect(map.isEmpty && map[1] == nil)
        map[1] = "a"
        map[2] = "b"
        map[1] = "c"
        #expect(map.count == 2 && map[1] == "c" && map[2] == "b")
        map[2]?.append("!")
        #expect(map[2] == "b!")
        #expect(map.removeValue(forKey: 1) == "c")
        #expect(map.removeValue(forKey: 1) == nil)
        map[2] = nil
        #expect(map.isEmpty)
    }

    @Test func listsAndComparesLikeADictionary() {
        var a = IDMap<Int>(), b = IDMap<Int>()
        // Ids as a runtime hands them out, and the extremes a caller may ask for.
        let ids: [Int64] = Array(1...500) + [0, -1, Int64.max, Int64.min, 1 << 53]
        for id in ids { a[id] = Int(truncatingIfNeeded: id) }
        for id in ids.reversed() { b[id] = Int(truncatingIfNeeded: id) }
        #expect(a == b)
        #expect(a.keys.sorted() == ids.sorted())
        #expect(Set(a.map(\.id)) == Set(ids))
        #expect(a.allSatisfy { $0.value == Int(truncatingIfNeeded: $0.id) })
        b[7] = 0
        #expect(a != b)
        a.removeAll()
        #expect(a.isEmpty && a[1] == nil)
    }

    /// Ids mostly rising, some old ones put back, most removed again: the
    /// map agrees with a dictionary throughout, lists in id order, and its
    /// holes are swept (its arrays stay near its count).
    @Test func agreesWithADictionaryThroughChurn() {
        var map = IDMap<Int>(), model: [Int64: Int] = [:]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return seed >> 33 }
        var newest: Int64 = 0
        for step in 0..<20_000 {
            switch next() % 8 {
            case 0..<3:
                newest += 1
                map[newest] = step
                model[newest] = step
            case 3:
                let old = Int64(next() % UInt64(newest + 1))
                map[old] = step
                model[old] = step
            default:
                let id = Int64(next() % UInt64(newest + 1))
                #expect(map.removeValue(forKey: id) == model.removeValue(forKey: id))
            }
            if step % 997 == 0 {
                #expect(map.count == model.count)
                #expect(map.keys == model.keys.sorted())
                #expect(map.ids.count <= 2 * map.count + 17)
            }
        }
        for (id, value) in model { #expect(map[id] == value) }
        #expect(map.map(\.id) == model.keys.sorted())
    }
}
