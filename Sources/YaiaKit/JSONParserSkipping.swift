// Checking a value without building it, for text that someone else reads.

extension JSONParser {
    /// Reads a value as parseValue does, failing exactly where and as it
    /// would, but builds nothing: a check of text that someone else reads.
    mutating func skipValue(depth: Int) throws(Stop) {
        guard index < bytes.count else { throw fail("unexpected end of text, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try skipObject(depth: depth + 1)
        case UInt8(ascii: "["): try skipArray(depth: depth + 1)
        case UInt8(ascii: "\""): try skipString()
        default: _ = try parseValue(depth: depth)
        }
    }

    private mutating func skipString() throws(Stop) {
        let open = index
        if plainString() == nil { _ = try parseStringRest(open: open) }
    }

    private mutating func skipObject(depth: Int) throws(Stop) {
        if try opensEmpty(close: UInt8(ascii: "}"), depth: depth) { return }
        while true {
            try keyQuote()
            try skipString()
            try colon()
            try skipValue(depth: depth)
            guard try moreItems(close: UInt8(ascii: "}")) else { return }
        }
    }

    private mutating func skipArray(depth: Int) throws(Stop) {
        if try opensEmpty(close: UInt8(ascii: "]"), depth: depth) { return }
        while true {
            skipSpace()
            try skipValue(depth: depth)
            guard try moreItems(close: UInt8(ascii: "]")) else { return }
        }
    }
}
