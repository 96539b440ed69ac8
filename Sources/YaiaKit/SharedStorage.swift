// Whether two values are one storage: equal without a look inside, in one
// comparison whatever their size. A live array's buffer is never written
// while shared (copy on write), so one buffer means one content.

extension Array {
    /// Whether both arrays hold the very same element buffer.
    package func sharesBuffer(with other: [Element]) -> Bool {
        guard count == other.count else { return false }
        if isEmpty { return true }
        return withUnsafeBufferPointer { x in other.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }
}

extension JSONObject {
    /// Whether both are the same members' storage.
    package func sharesStorage(with other: JSONObject) -> Bool { members.sharesBuffer(with: other.members) }
}
