import Foundation
import Synchronization
import Testing
import YaiaKit

// KeyedList (YaiaKit): against an array as its model, its JSON form, and the
// rows derived from it, remade only for the elements that changed.

struct Item: Identifiable, Codable, Equatable, Sendable {
    var id: Int
    var value: String
    var flag: Bool
}

/// SplitMix64: the same numbers from the same seed, on every platform.
struct SeededNumbers {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

/// A row whose every making is counted.
struct CountedRow: KeyedListRow, Encodable {
    static let made = Mutex(0)
    var id: Int
    var value: String
    init(_ item: Item) {
        id = item.id
        value = item.value
        CountedRow.made.withLock { $0 += 1 }
    }
}

/// The same, for the random test (tests run in parallel: counters apart).
struct PlainRow: KeyedListRow, Encodable {
    var id: Int
    var value: String
    var flag: Bool
    init(_ item: Item) {
        id = item.id
        value = item.value
        flag = item.flag
    }
}

/// A child of the keyed slot "rows" for an item: keyed by its id, its args its value.
private func childOf(_ item: Item) -> (key: JSON, args: JSON) {
    (.int(Int64(item.id)), ["value": .string(item.value)])
}

@Suite("KeyedList")
struct KeyedListTests {
    @Test("seeded random changes give what an array gives, rows and counts included", arguments: [1, 2, 3])
    func model(seed: UInt64) throws {
        var numbers = SeededNumbers(state: seed)
        var list = KeyedList<Item>()
        var model: [Item] = []
        var nextID = 0
        var kept: [(KeyedList<Item>, [Item])] = []
        for step in 0..<600 {
            switch numbers.next(6) {
            case 0, 1:
                let item = Item(id: nextID, value: "v\(step)", flag: numbers.next(2) == 0)
                nextID += 1
                list.append(item)
                model.append(item)
            case 2:
                let item = Item(id: nextID, value: "i\(step)", flag: false)
                nextID += 1
                let at = numbers.next(model.count + 1)
                list.insert(item, at: at)
                model.insert(item, at: at)
            case 3 where !model.isEmpty:
                let at = numbers.next(model.count)
                let id = model[at].id
                list.modify(id: id) { $0.flag.toggle(); $0.value += "!" }
                model[at].flag.toggle()
                model[at].value += "!"
            case 4 where !model.isEmpty:
                let id = model[numbers.next(model.count)].id
                #expect(list.remove(id: id)?.id == id)
                model.removeAll { $0.id == id }
            default:
                // An id not in the list changes nothing.
                #expect(list.remove(id: -1) == nil)
                list.modify(id: -2) { $0.flag = true }
            }
            #expect(list.count == model.count)
            if step % 7 == 0 {
                #expect(Array(list) == model)
                #expect(list.rows(PlainRow.self).json == .array(.init(model.map { PlainRow($0).json })))
                #expect(list.count(matching: \.flag) == model.filter(\.flag).count)
                #expect(list.children("rows", childOf) == model.map { Child(slot: "rows", key: childOf($0).key, args: childOf($0).args) })
                if !model.isEmpty, case let probe = model[numbers.next(model.count)] {
                    #expect(list[id: probe.id] == probe)
                    #expect(list.position(of: probe.id) == model.firstIndex(of: probe))
                }
            }
            if step % 50 == 0 { kept.append((list, model)) }
        }
        #expect(Array(list) == model)
        // Copies kept along the way did not change with the list.
        for (copy, then) in kept {
            #expect(Array(copy) == then)
            #expect(copy.rows(PlainRow.self).json == .array(.init(then.map { PlainRow($0).json })))
        }
    }

    @Test("its JSON is the JSON of the array of its elements, both ways")
    func coding() throws {
        let items = (0..<100).map { Item(id: $0 * 7 % 100, value: "x\($0)", flag: $0 % 3 == 0) }
        let list = KeyedList(items)
        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        #expect(try sorted.encode(list) == sorted.encode(items))
        #expect(try JSONValueEncoder().encode(list) == JSONValueEncoder().encode(items))
        let back = try JSONDecoder().decode(KeyedList<Item>.self, from: JSONEncoder().encode(items))
        #expect(back == list && Array(back) == items)
        let json = try JSONValueEncoder().encode(items)
        #expect(try json.decode(KeyedList<Item>.self) == list)
        // One id twice is refused, where it repeats.
        let twice: JSON = [["id": 1, "value": "a", "flag": true], ["id": 1, "value": "b", "flag": false]]
        #expect(throws: YaiaError.self) { try twice.decode(KeyedList<Item>.self) }
    }

    @Test("children are remade only for the elements a change touched, and an unchanged list gives the same array")
    func children() {
        var list = KeyedList((0..<1000).map { Item(id: $0, value: "v\($0)", flag: false) })
        var calls = 0
        func count(_ item: Item) -> (key: JSON, args: JSON) {
            calls += 1
            return childOf(item)
        }
        let first = list.children("rows", count)
        #expect(calls == 1000 && first.count == 1000)
        let again = list.children("rows", count)
        #expect(calls == 1000)
        // The same storage: Array's == answers at once.
        #expect(first.withUnsafeBufferPointer { a in again.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } })
        list.modify(id: 500) { $0.value = "changed" }
        let changed = list.children("rows", count)
        #expect(calls == 1001)
        #expect(changed[500].args == ["value": "changed"] && first[500].args == ["value": "v500"])
        #expect(changed[499] == first[499])
    }

    @Test("rows are remade only for the elements a change touched")
    func rows() {
        var list = KeyedList((0..<1000).map { Item(id: $0, value: "v\($0)", flag: false) })
        func made(_ body: () -> Void) -> Int {
            let before = CountedRow.made.withLock { $0 }
            body()
            return CountedRow.made.withLock { $0 } - before
        }
        var rows = ViewRows?.none
        #expect(made { rows = list.rows(CountedRow.self) } == 1000)
        #expect(made { _ = list.rows(CountedRow.self) } == 0)
        list.modify(id: 500) { $0.value = "changed" }
        #expect(made { rows = list.rows(CountedRow.self) } == 1)
        #expect(rows?.json.arrayValue?[500] == ["id": 500, "value": "changed"])
        list.append(Item(id: 1000, value: "new", flag: true))
        list.remove(id: 3)
        list.insert(Item(id: 1001, value: "first", flag: false), at: 0)
        #expect(made { rows = list.rows(CountedRow.self) } == 2)
        #expect(rows?.json == .array(.init(list.map { item -> JSON in ["id": .int(Int64(item.id)), "value": .string(item.value)] })))
        // Another branch of the same list: computed again, and right.
        var other = list
        other.modify(id: 10) { $0.value = "other" }
        list.modify(id: 11) { $0.value = "this" }
        #expect(made { rows = other.rows(CountedRow.self) } == 1)
        #expect(made { rows = list.rows(CountedRow.self) } == 1001)
        #expect(rows?.json.arrayValue?[11]["value"] == "this" && rows?.json.arrayValue?[10]["value"] == "v10")
    }

    @Test("ids stay distinct: an element with a known id replaces that one, where it is")
    func distinctIDs() {
        var list: KeyedList<Item> = [Item(id: 1, value: "a", flag: false), Item(id: 2, value: "b", flag: false), Item(id: 1, value: "c", flag: true)]
        #expect(list.map(\.value) == ["c", "b"])
        list.append(Item(id: 2, value: "d", flag: false))
        list.insert(Item(id: 1, value: "e", flag: false), at: 2)
        #expect(list.map(\.value) == ["e", "d"])
        list[id: 3] = Item(id: 3, value: "f", flag: false)
        list[id: 1] = nil
        #expect(list.map(\.id) == [2, 3] && list[id: 3]?.value == "f")
        list.replace(at: 0, with: Item(id: 3, value: "g", flag: false))
        #expect(list.map(\.value) == ["g"] && list.count == 1)
    }

    @Test("many insertions at one place spread the keys again, and stay in order")
    func crowded() {
        var list = KeyedList<Item>([Item(id: -1, value: "end", flag: false)])
        var model = list.elements
        for i in 0..<200 {
            list.insert(Item(id: i, value: "\(i)", flag: false), at: 1 - (i % 2))
            model.insert(Item(id: i, value: "\(i)", flag: false), at: 1 - (i % 2))
        }
        #expect(Array(list) == model)
    }
}

/// An id whose every value has one hash: the ids of a list of them all
/// collide, as two ids' hashes may.
struct SameHash: Hashable, Codable, Sendable {
    var n: Int
    func hash(into hasher: inout Hasher) { hasher.combine(0) }
}

struct Colliding: Identifiable, Codable, Equatable, Sendable {
    var id: SameHash
    var value: String
}

@Suite("KeyedList decoding")
struct KeyedListDecodingTests {
    @Test("ids that share a hash are told apart when a list is read, and a repeat is found where it first is")
    func collisions() throws {
        let items = (0..<50).map { Colliding(id: SameHash(n: (7 * $0) % 50), value: "v\($0)") }
        let json = try JSONValueEncoder().encode(items)
        let list = try json.decode(KeyedList<Colliding>.self)
        #expect(Array(list) == items)
        for item in items { #expect(list[id: item.id] == item) }
        #expect(list[id: SameHash(n: 50)] == nil)
        // Element 7 repeats element 3's id, element 9 element 1's: 7 is named.
        var repeated = items
        repeated[7].id = items[3].id
        repeated[9].id = items[1].id
        do {
            _ = try JSONValueEncoder().encode(repeated).decode(KeyedList<Colliding>.self)
            Issue.record("a repeated id was read")
        } catch {
            #expect(error.message.contains("element 7"))
        }
        // Among ids of different hashes too.
        let plain: JSON = [["id": 4, "value": "a", "flag": true], ["id": 5, "value": "b", "flag": true],
                           ["id": 6, "value": "c", "flag": true], ["id": 5, "value": "d", "flag": true], ["id": 4, "value": "e", "flag": true]]
        do {
            _ = try plain.decode(KeyedList<Item>.self)
            Issue.record("a repeated id was read")
        } catch {
            #expect(error.message.contains("element 3"))
        }
    }
}
