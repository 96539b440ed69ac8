import Testing
import YaiaRuntime

private final class Box: Sendable {
    let n: Int
    init(_ n: Int) { self.n = n }
}

@Suite("Handle tables")
struct HandleTableTests {
    @Test("a handle finds its object until removed, then never again, though its slot is reused")
    func staleAfterReuse() throws {
        let table = HandleTable<Box>(tag: 0x5)
        let first = try #require(table.insert(Box(1)))
        #expect(table.get(first)?.n == 1)
        #expect(table.remove(first)?.n == 1)
        #expect(table.get(first) == nil)
        #expect(table.remove(first) == nil)
        let second = try #require(table.insert(Box(2)))
        #expect(second != first)
        #expect(second & 0xFFFF_FFFF == first & 0xFFFF_FFFF, "the slot is reused")
        #expect(table.get(first) == nil, "a stale handle stays stale")
        #expect(table.get(second)?.n == 2)
    }

    @Test("handles of another tag, made-up handles and 0 are not found")
    func foreignHandles() throws {
        let calls = HandleTable<Box>(tag: 0x5)
        let queues = HandleTable<Box>(tag: 0xA)
        let call = try #require(calls.insert(Box(1)))
        let queue = try #require(queues.insert(Box(2)))
        #expect(queues.get(call) == nil)
        #expect(calls.get(queue) == nil)
        #expect(calls.get(0) == nil)
        #expect(calls.get(call | 1 << 40) == nil)
        #expect(calls.get(call + 0x10) == nil, "the next slot is empty")
        #expect(calls.get(UInt.max) == nil)
    }

    @Test("many live handles are distinct and each finds its own object")
    func manyLive() throws {
        let table = HandleTable<Box>(tag: 0x3)
        var handles: [UInt] = []
        for i in 0..<1000 { handles.append(try #require(table.insert(Box(i)))) }
        #expect(Set(handles).count == 1000)
        for (i, h) in handles.enumerated() { #expect(table.get(h)?.n == i) }
        for h in handles where h & 0x10 != 0 { table.remove(h) }
        for (i, h) in handles.enumerated() { #expect((table.get(h) == nil) == (h & 0x10 != 0), "handle \(i)") }
    }
}
