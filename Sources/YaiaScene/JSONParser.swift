/// RFC 8259 JSON parsing over UTF-8 bytes.
///
/// Strict: no comments, trailing commas, single quotes, leading zeros, NaN or
/// infinities; the text must be valid UTF-8 with no byte order mark; `\u`
/// escapes must pair surrogates. Duplicate keys: the last one wins. Numbers
/// outside the range of a double are refused, not turned into infinity.
/// Nesting deeper than `maxDepth` is refused (`limit_exceeded`, limit
/// "depth") before it can exhaust the stack.
public struct JSONParser {
    public static let defaultMaxDepth = 512

    /// Parses one JSON text. Errors have code `invalid_json` and name the byte offset.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = defaultMaxDepth) throws(YaiaError) -> JSON {
        try withParser(bytes, maxDepth: maxDepth) { (parser) throws(Stop) -> JSON in
            parser.skipSpace()
            let value = try parser.parseValue(depth: 0)
            parser.skipSpace()
            if parser.index < bytes.count {
                throw parser.unexpectedAfterValue()
            }
            return value
        }
    }

    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(YaiaError) -> JSON {
        var text = text
        // withUTF8 rethrows untyped errors; carry the typed one out in a Result.
        return try text.withUTF8 { buffer in Result { () throws(YaiaError) in try parse(buffer, maxDepth: maxDepth) } }.get()
    }

    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(YaiaError) -> JSON {
        try bytes.withUnsafeBufferPointer { buffer in Result { () throws(YaiaError) in try parse(buffer, maxDepth: maxDepth) } }.get()
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0
    /// The members and elements of the objects and arrays still open,
    /// innermost last. A container moves its own off the top when it closes,
    /// so each members or elements array is allocated once, at its final size.
    var pendingMembers: PendingStack<JSONObject.Member>
    var pendingElements: PendingStack<JSON>
    /// Where each pending member's key lies in the text, or `escapedKey`:
    /// keys are compared there, without going through their Strings.
    var keySpans: PendingStack<Range<Int>>
    /// Set when parsing fails, just before `Stop` is thrown.
    var failure: YaiaError?

    /// Runs `body` with a parser whose pending stacks start on the call stack
    /// (enough for the usual small texts) and move to the heap only when they
    /// outgrow it; whatever they hold when `body` ends, returns or throws, is
    /// released with them. Each start stays within the 1 KiB that
    /// withUnsafeTemporaryAllocation keeps on the stack without asking.
    static func withParser<R>(
        _ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int,
        _ body: (inout JSONParser) throws(Stop) -> R
    ) throws(YaiaError) -> R {
        try withUnsafeTemporaryAllocation(of: JSONObject.Member.self, capacity: 24) { (members) throws(YaiaError) -> R in
            try withUnsafeTemporaryAllocation(of: JSON.self, capacity: 32) { (elements) throws(YaiaError) -> R in
                try withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: 24) { (spans) throws(YaiaError) -> R in
                    var parser = JSONParser(
                        bytes: bytes, maxDepth: maxDepth,
                        pendingMembers: PendingStack(members), pendingElements: PendingStack(elements), keySpans: PendingStack(spans))
                    defer {
                        parser.pendingMembers.release()
                        parser.pendingElements.release()
                        parser.keySpans.release()
                    }
                    do {
                        return try body(&parser)
                    } catch {
                        throw parser.failure ?? YaiaError(.internal, "the JSON parser stopped without saying why")
                    }
                }
            }
        }
    }

    // MARK: errors

    /// What the parsing functions throw, once `failure` holds the error: an
    /// error too small to need room in their stack frames, which recursion
    /// multiplies. The messages are built out of line for the same reason.
    struct Stop: Error {}

    @inline(never)
    mutating func fail(_ message: String, at offset: Int? = nil) -> Stop {
        failure = YaiaError(.invalidJSON, "invalid JSON: \(message) \(position(offset ?? index))")
        return Stop()
    }

    /// "at byte N (line L, column C)".
    func position(_ offset: Int) -> String {
        var line = 1
        var column = 1
        for i in 0..<Swift.min(offset, bytes.count) {
            if bytes[i] == 0x0A { line += 1; column = 1 } else { column += 1 }
        }
        return "at byte \(offset) (line \(line), column \(column))"
    }

    @inline(never)
    mutating func unexpected(expecting expected: String) -> Stop {
        fail("unexpected \(describeByte()), expected \(expected)")
    }

    @inline(never)
    mutating func unexpectedAfterValue() -> Stop {
        fail("unexpected \(describeByte()) after the JSON value")
    }

    /// Nesting beyond `maxDepth`: a limit, not a syntax error.
    @inline(never)
    mutating func tooDeep() -> Stop {
        var error = YaiaError(.limitExceeded, "nesting deeper than \(counted(maxDepth, "level")) \(position(index)): the \"depth\" limit is \(maxDepth)")
        error.limit = "depth"
        failure = error
        return Stop()
    }

    func describeByte() -> String {
        guard index < bytes.count else { return "end of text" }
        let c = bytes[index]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x" + String(c, radix: 16, uppercase: true)
    }

    // MARK: grammar

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

    /// The span of a key with escapes, whose text is not its bytes.
    static let escapedKey = -1..<(-1)

    /// Orders pending members `i` and `j` by the UTF-8 bytes of their keys.
    func compareMembers(_ i: Int, _ j: Int) -> Int {
        let a = keySpans[i], b = keySpans[j]
        if a != Self.escapedKey && b != Self.escapedKey { return compareText(a, b) }
        return YaiaScene.compareKeys(pendingMembers[i].key, pendingMembers[j].key)
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

    mutating func parseString() throws(Stop) -> String {
        let open = index
        if let text = plainString() { return Self.asciiString(UnsafeBufferPointer(rebasing: bytes[text])) }
        return try parseStringRest(open: open)
    }

    /// Reads a string of printable ASCII with no escapes, the usual kind,
    /// and returns where its bytes lie. At any other byte it stops there,
    /// for parseStringRest to go on from, and returns nil.
    @inline(__always)
    mutating func plainString() -> Range<Int>? {
        let start = index + 1
        var i = start
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                index = i + 1
                return start..<i
            }
            // A backslash, a control character or a non-ASCII byte.
            if c == UInt8(ascii: "\\") || c &- 0x20 >= 0x60 { break }
            i += 1
        }
        index = i
        return nil
    }

    /// The rest of the string whose opening quote is at `open`, from where
    /// plainString stopped.
    mutating func parseStringRest(open: Int) throws(Stop) -> String {
        let start = open + 1
        var ascii = true
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if ascii { return Self.asciiString(slice) }
                guard let s = String(validating: slice, as: UTF8.self) else {
                    throw fail("the string is not valid UTF-8", at: open)
                }
                return s
            }
            if c == UInt8(ascii: "\\") { return try parseEscapedString(open: open, start: start) }
            if c < 0x20 { throw fail("unescaped control character in a string") }
            if c >= 0x80 { ascii = false }
            index += 1
        }
        throw fail("unterminated string", at: open)
    }

    /// Bytes known to be ASCII, as a String. Up to 15 bytes this builds a
    /// small string with no second scan, where String(decoding:as:) would
    /// check and copy the bytes again.
    @inline(__always)
    static func asciiString(_ ascii: UnsafeBufferPointer<UInt8>) -> String {
        if ascii.count > 15 { return String(decoding: ascii, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: ascii.count) { target in
            guard let to = target.baseAddress, let from = ascii.baseAddress else { return 0 }
            to.initialize(from: from, count: ascii.count)
            return ascii.count
        }
    }

    /// The rest of a string from its first backslash, at `index`.
    mutating func parseEscapedString(open: Int, start: Int) throws(Stop) -> String {
        var buffer: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                guard let s = String(validating: buffer, as: UTF8.self) else {
                    throw fail("the string is not valid UTF-8", at: open)
                }
                return s
            }
            if c < 0x20 { throw fail("unescaped control character in a string") }
            if c != UInt8(ascii: "\\") {
                buffer.append(c)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): buffer.append(0x22)
            case UInt8(ascii: "\\"): buffer.append(0x5C)
            case UInt8(ascii: "/"): buffer.append(0x2F)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw fail("a high surrogate escape must be followed by a low surrogate escape")
                    }
                    index += 2
                    let low = try hex4()
                    guard low >= 0xDC00 && low < 0xE000 else {
                        throw fail("a high surrogate escape must be followed by a low surrogate escape")
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    throw fail("a lone low surrogate escape")
                }
                appendUTF8(scalar, to: &buffer)
            default:
                index -= 1
                throw fail("invalid escape \\\(describeByte())")
            }
        }
        throw fail("unterminated string", at: open)
    }

    mutating func hex4() throws(Stop) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("a \\u escape needs four hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - 48
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - 87
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - 55
            default: throw fail("a \\u escape needs four hex digits")
            }
            v = v << 4 | UInt32(d)
            index += 1
        }
        return v
    }

    mutating func parseNumber() throws(Stop) -> JSON {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("a number needs digits") }
        var magnitude: UInt64 = 0
        var overflow = false
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count && isDigit(bytes[index]) { throw fail("leading zeros are not allowed") }
        } else {
            while index < bytes.count && isDigit(bytes[index]) {
                let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (m2, o2) = m1.addingReportingOverflow(UInt64(bytes[index] - 48))
                overflow = overflow || o1 || o2
                magnitude = m2
                index += 1
            }
        }
        var integral = true
        // The fraction's digits join `magnitude`, which then stands for
        // magnitude × 10^(exponent - fractionDigits).
        var fractionDigits = 0
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("a fraction needs digits") }
            while index < bytes.count && isDigit(bytes[index]) {
                if !overflow {
                    let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
                    let (m2, o2) = m1.addingReportingOverflow(UInt64(bytes[index] - 48))
                    overflow = o1 || o2
                    magnitude = m2
                    fractionDigits += 1
                }
                index += 1
            }
        }
        var exponent = 0
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            integral = false
            index += 1
            var negativeExponent = false
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                negativeExponent = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("an exponent needs digits") }
            while index < bytes.count && isDigit(bytes[index]) {
                // Past this size only its being large matters.
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[index] - 48) }
                index += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        if !overflow {
            if integral {
                if negative {
                    if magnitude <= UInt64(Int64.max) { return .int(-Int64(magnitude)) }
                    if magnitude == UInt64(Int64.max) + 1 { return .int(Int64.min) }
                } else {
                    if magnitude <= UInt64(Int64.max) { return .int(Int64(magnitude)) }
                    return .uint(magnitude)
                }
            } else if let d = Self.exactDouble(magnitude, exponent: exponent - fractionDigits) {
                return .double(negative ? -d : d)
            }
        }
        return try parseDouble(from: start)
    }

    /// `significand` × 10^`exponent`, when both factors are doubles exactly
    /// (at most 2^53, and 10^22 at most): then the one multiplication or
    /// division rounds to nearest as the full conversion does.
    @inline(__always)
    static func exactDouble(_ significand: UInt64, exponent: Int) -> Double? {
        guard significand <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        let m = Double(significand)
        return exponent < 0 ? m / powersOfTen[-exponent] : m * powersOfTen[exponent]
    }

    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The number from `start` to `index`, which has a fraction, an
    /// exponent, or too many digits for an integer.
    @inline(never)
    mutating func parseDouble(from start: Int) throws(Stop) -> JSON {
        // Swift's own parser: correctly rounded and independent of the C locale.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else {
            throw fail("the number is beyond the range of a double", at: start)
        }
        return .double(d)
    }

    /// `scalar` is a valid code point here: surrogates were paired or refused above.
    func appendUTF8(_ scalar: UInt32, to buffer: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            buffer.append(UInt8(scalar))
        case 0x80..<0x800:
            buffer.append(UInt8(0xC0 | scalar >> 6))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            buffer.append(UInt8(0xE0 | scalar >> 12))
            buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        default:
            buffer.append(UInt8(0xF0 | scalar >> 18))
            buffer.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    @inline(__always)
    func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
}

extension Action {
    /// `Action(json: JSONParser.parse(bytes))`, with the same results and
    /// errors, but the action's members are taken as they are read: no
    /// object is built and searched. Every send pays for this parse.
    ///
    /// `skippingPayload`: the payload is checked as strictly, with the same
    /// errors, but not built; `payloadSkipped` tells so, and the payload is
    /// in `bytes`, for a reader of the text (a scene pack) or for `parsingPayload(from:)`.
    public init(parsing bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = JSONParser.defaultMaxDepth,
                skippingPayload: Bool = false) throws(YaiaError) {
        let action = try JSONParser.withParser(bytes, maxDepth: maxDepth) { (parser) throws(JSONParser.Stop) -> Action? in
            parser.skipSpace()
            guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "{") else { return nil }
            var type: JSON?, payload: JSON?, error: JSON?, meta: JSON?, skipped = false
            parser.index += 1
            parser.skipSpace()
            if parser.index < bytes.count && bytes[parser.index] == UInt8(ascii: "}") {
                parser.index += 1
            } else {
                while true {
                    try parser.keyQuote()
                    let member: ActionMember
                    let open = parser.index
                    if let text = parser.plainString() {
                        member = ActionMember(UnsafeBufferPointer(rebasing: bytes[text]))
                    } else {
                        var key = try parser.parseStringRest(open: open)
                        member = key.withUTF8 { ActionMember($0) }
                    }
                    try parser.colon()
                    if case .other = member {
                        try parser.skipValue(depth: 1)
                    } else if skippingPayload, case .payload = member {
                        try parser.skipValue(depth: 1)
                        skipped = true
                        payload = nil
                    } else {
                        let value = try parser.parseValue(depth: 1)
                        // Later duplicates win, as in JSONObject.
                        switch member {
                        case .type: type = value
                        case .payload: payload = value
                        case .error: error = value
                        case .meta: meta = value
                        case .other: break
                        }
                    }
                    guard try parser.moreItems(close: UInt8(ascii: "}")) else { break }
                }
            }
            parser.skipSpace()
            if parser.index < bytes.count {
                throw parser.unexpectedAfterValue()
            }
            guard case .string(let name)? = type else {
                parser.failure = YaiaError(.missingActionType, "the action has no string \"type\"", at: "/type")
                throw JSONParser.Stop()
            }
            var isError = false
            if let error {
                guard case .bool(let b) = error else {
                    parser.failure = YaiaError(.badPayload, "the action's \"error\" must be a boolean", at: "/error")
                    throw JSONParser.Stop()
                }
                isError = b
            }
            var action = Action(name, payload: payload, error: isError, meta: meta)
            action.payloadSkipped = skipped
            return action
        }
        guard let action else {
            try self.init(json: try JSONParser.parse(bytes, maxDepth: maxDepth))
            return
        }
        self = action
    }
}

extension Action {
    /// This action with its payload built from `text`, the text it was
    /// read from with `skippingPayload` (so known to be valid within its
    /// limits); itself when its payload was built.
    public func parsingPayload(from text: UnsafeBufferPointer<UInt8>?) throws(YaiaError) -> Action {
        guard payloadSkipped else { return self }
        guard let text else { throw YaiaError(.internal, "an action read without its payload came without its text") }
        return try Action(parsing: text, maxDepth: Int.max / 2)
    }
}

/// The member of an action a key names, told by the key's UTF-8 bytes:
/// no String is made for the usual plain keys.
enum ActionMember {
    case type, payload, error, meta, other

    init(_ key: UnsafeBufferPointer<UInt8>) {
        func spells(_ word: StaticString) -> Bool {
            guard key.count == word.utf8CodeUnitCount else { return false }
            for i in 0..<key.count where key[i] != word.utf8Start[i] { return false }
            return true
        }
        if spells("type") { self = .type }
        else if spells("payload") { self = .payload }
        else if spells("error") { self = .error }
        else if spells("meta") { self = .meta }
        else { self = .other }
    }
}

/// A stack of values in memory it manages itself: it starts in a buffer it
/// is lent and moves to the heap, doubling, when that fills. Values leave it
/// by moving, so nothing is retained or released on the way.
struct PendingStack<Element> {
    private var start: UnsafeMutablePointer<Element>
    private var capacity: Int
    private var onHeap: Bool
    private(set) var count = 0

    init(_ lent: UnsafeMutableBufferPointer<Element>) {
        if let base = lent.baseAddress, lent.count > 0 {
            start = base
            capacity = lent.count
            onHeap = false
        } else {
            capacity = 16
            start = .allocate(capacity: capacity)
            onHeap = true
        }
    }

    /// Value `i`, counted from the bottom; `i < count`.
    subscript(i: Int) -> Element { start[i] }

    /// Moves value `i` out, leaving its slot uninitialized: before the
    /// stack is used again, every such slot must lie above `abandon(to:)`.
    mutating func move(at i: Int) -> Element {
        (start + i).move()
    }

    /// Destroys value `i`, with the same duty as `move(at:)`.
    mutating func destroy(at i: Int) {
        (start + i).deinitialize(count: 1)
    }

    /// Forgets the slots from `newCount` up, whose values were all moved out or destroyed.
    mutating func abandon(to newCount: Int) {
        count = newCount
    }

    /// Destroys the values from `newCount` up.
    mutating func removeLast(to newCount: Int) {
        (start + newCount).deinitialize(count: count - newCount)
        count = newCount
    }

    @inline(__always)
    mutating func append(_ value: consuming Element) {
        if count == capacity { grow() }
        (start + count).initialize(to: value)
        count += 1
    }

    mutating func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: start, count: count)
        if onHeap { start.deallocate() }
        start = larger
        capacity *= 2
        onHeap = true
    }

    /// Moves the values from `base` up, in order, into an array of their count.
    @inline(__always)
    mutating func take(from base: Int) -> [Element] {
        // Not Array(unsafeUninitializedCapacity:), which looks up the
        // storage's type metadata at run time on every call.
        var taken: [Element] = []
        taken.reserveCapacity(count - base)
        for i in base..<count { taken.append((start + i).move()) }
        count = base
        return taken
    }

    /// Destroys what is left and gives back heap memory; the stack is then unusable.
    mutating func release() {
        start.deinitialize(count: count)
        count = 0
        if onHeap { start.deallocate() }
    }
}
