// The grammar: values, literals, objects (members placed in key order as they come) and arrays.

extension JSONParser {
    @inline(__always)
    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(Stop) -> JSON {
        guard index < bytes.count else { throw fail("unexpected end of text, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBB && bytes[index + 2] == 0xBF:
            throw fail("a byte order mark is not allowed")
        default: throw unexpected(expecting: "a value")
        }
    }

    @inline(__always)
    mutating func literal(_ word: StaticString) throws(Stop) {
        let n = word.utf8CodeUnitCount
        let start = word.utf8Start
        guard index + n <= bytes.count else { throw fail("invalid literal") }
        for i in 0..<n where bytes[index + i] != start[i] {
            throw fail("invalid literal")
        }
        index += n
    }

    mutating func parseObject(depth: Int) throws(Stop) -> JSON {
        if try opensEmpty(close: UInt8(ascii: "}"), depth: depth) { return .object(JSONObject()) }
        let base = pendingMembers.count
        // Keys usually arrive in order: check as they come, and sort only
        // when they do not.
        var ordered = true
        while true {
            try keyQuote()
            let keyStart = index + 1
            let key = try parseString()
            // Every escape is longer than the bytes it stands for.
            let span = index - 1 - keyStart == key.utf8.count ? keyStart..<(index - 1) : Self.escapedKey
            if ordered && pendingMembers.count > base {
                let previous = keySpans.count - 1
                let order = span != Self.escapedKey && keySpans[previous] != Self.escapedKey
                    ? compareText(keySpans[previous], span)
                    : compareKeys(pendingMembers[previous].key, key)
                ordered = order < 0
            }
            try colon()
            let value = try parseValue(depth: depth)
            pendingMembers.append(JSONObject.Member(key: key, value: value))
            keySpans.append(span)
            if try moreItems(close: UInt8(ascii: "}")) { continue }
            if ordered {
                keySpans.removeLast(to: base)
                return .object(JSONObject(orderedMembers: pendingMembers.take(from: base)))
            }
            if pendingMembers.count - base > 32 {
                keySpans.removeLast(to: base)
                return .object(JSONObject(members: pendingMembers.take(from: base)))
            }
            return .object(JSONObject(orderedMembers: takeSortedMembers(from: base)))
        }
    }

    /// At the "{" or "[" of a container `depth` deep: passes it, and its
    /// "}" or "]" too (true) when it is empty.
    @inline(__always)
    mutating func opensEmpty(close: UInt8, depth: Int) throws(Stop) -> Bool {
        guard depth <= maxDepth else { throw tooDeep() }
        index += 1
        skipSpace()
        guard index < bytes.count && bytes[index] == close else { return false }
        index += 1
        return true
    }

    /// Before a member: the space, then the opening quote of its key.
    @inline(__always)
    mutating func keyQuote() throws(Stop) {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw unexpected(expecting: "a string key") }
    }

    /// After a member's key: its ":" and the space around it.
    @inline(__always)
    mutating func colon() throws(Stop) {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw unexpected(expecting: "':'") }
        index += 1
        skipSpace()
    }

    /// After an item of an object or array: true at ",", false at `close`
    /// (both passed), otherwise the failure.
    @inline(__always)
    mutating func moreItems(close: UInt8) throws(Stop) -> Bool {
        skipSpace()
        guard index < bytes.count else { throw missingSeparator(close: close) }
        let c = bytes[index]
        index += 1
        if c == UInt8(ascii: ",") { return true }
        if c == close { return false }
        index -= 1
        throw badSeparator(close: close)
    }

    @inline(never)
    mutating func missingSeparator(close: UInt8) -> Stop {
        fail(close == UInt8(ascii: "}") ? "unexpected end of text, expected ',' or '}'" : "unexpected end of text, expected ',' or ']'")
    }

    @inline(never)
    mutating func badSeparator(close: UInt8) -> Stop {
        unexpected(expecting: close == UInt8(ascii: "}") ? "',' or '}'" : "',' or ']'")
    }

    /// The span of a key with escapes, whose text is not its bytes.
    static let escapedKey = -1..<(-1)

    /// Orders pending members `i` and `j` by the UTF-8 bytes of their keys.
    func compareMembers(_ i: Int, _ j: Int) -> Int {
        let a = keySpans[i], b = keySpans[j]
        if a != Self.escapedKey && b != Self.escapedKey { return compareText(a, b) }
        return YaiaKit.compareKeys(pendingMembers[i].key, pendingMembers[j].key)
    }

    /// The few members from `base` up, sorted by key with only the last of
    /// each key kept, as JSONObject(members:) would leave them: a stable
    /// insertion sort of their positions, then each member moved once.
    @inline(never)
    mutating func takeSortedMembers(from base: Int) -> [JSONObject.Member] {
        let n = pendingMembers.count - base
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { order in
            for k in 0..<n { order[k] = base + k }
            var equalKeys = false
            for k in 1..<n {
                var j = k
                while j > 0 {
                    // A member stops right after an equal key if there is
                    // one, so equal keys, if any, show here.
                    let c = compareMembers(order[j - 1], order[j])
                    if c == 0 { equalKeys = true }
                    if c <= 0 { break }
                    order.swapAt(j - 1, j)
                    j -= 1
                }
            }
            // Of equal keys, now side by side in the order given, the last wins.
            var kept = n
            if equalKeys {
                kept = 0
                for k in 0..<n {
                    if k + 1 < n && compareMembers(order[k], order[k + 1]) == 0 {
                        pendingMembers.destroy(at: order[k])
                    } else {
                        order[kept] = order[k]
                        kept += 1
                    }
                }
            }
            var members: [JSONObject.Member] = []
            members.reserveCapacity(kept)
            for k in 0..<kept { members.append(pendingMembers.move(at: order[k])) }
            pendingMembers.abandon(to: base)
            keySpans.removeLast(to: base)
            return members
        }
    }

    mutating func parseArray(depth: Int) throws(Stop) -> JSON {
        if try opensEmpty(close: UInt8(ascii: "]"), depth: depth) { return .array([]) }
        let base = pendingElements.count
        while true {
            skipSpace()
            let value = try parseValue(depth: depth)
            pendingElements.append(value)
            if try moreItems(close: UInt8(ascii: "]")) { continue }
            return .array(pendingElements.take(from: base))
        }
    }

    /// Orders two spans of the text by their bytes: -1, 0 or 1.
    @inline(__always)
    func compareText(_ a: Range<Int>, _ b: Range<Int>) -> Int {
        let n = Swift.min(a.count, b.count)
        var i = 0
        while i < n {
            let x = bytes[a.lowerBound + i]
            let y = bytes[b.lowerBound + i]
            if x != y { return x < y ? -1 : 1 }
            i += 1
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
