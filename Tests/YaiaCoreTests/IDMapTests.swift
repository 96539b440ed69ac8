import Testing
import YaiaCore

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
}
