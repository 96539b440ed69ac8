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

    @Test func spreadsSequentialIDsOverTheBuckets() {
        // A table of 2^k buckets uses the low bits: consecutive ids, the
        // runtime's case, must not pile into a few of them.
        let key = IDMap<Int>.Key.self
        for seed in [0, 12345, -7] {
            var buckets = Set<Int>()
            for id in Int64(1)...1024 { buckets.insert(key.init(id)._rawHashValue(seed: seed) & 1023) }
            #expect(buckets.count > 600, "seed \(seed): \(buckets.count) of 1024 buckets")
        }
        // The seed changes the order of buckets.
        #expect(key.init(1)._rawHashValue(seed: 1) != key.init(1)._rawHashValue(seed: 2))
    }
}
