/// RFC 8259 JSON parsing over UTF-8 bytes.
///
/// Strict: no comments, trailing commas, single quotes, leading zeros, NaN or
/// infinities; the text must be valid UTF-8 with no byte order mark; `\u`
/// escapes must pair surrogates. Duplicate keys: the last one wins. Numbers
/// outside the range of a double are refused, not turned into infinity.
/// Nesting deeper than `maxDepth` is refused (`limit_exceeded`, limit
/// "depth") before it can exhaust the stack.
package struct JSONParser {
    package static let defaultMaxDepth = 512

    /// Parses one JSON text. Errors have code `invalid_json` and name the byte offset.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = defaultMaxDepth) throws(YaiaError) -> JSON {
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

    package static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(YaiaError) -> JSON {
        var text = text
        // withUTF8 rethrows untyped errors; carry the typed one out in a Result.
        return try text.withUTF8 { buffer in Result { () throws(YaiaError) in try parse(buffer, maxDepth: maxDepth) } }.get()
    }

    package static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(YaiaError) -> JSON {
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
}
