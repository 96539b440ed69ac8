import Glibc
import Synchronization
import YaiaCore
import YaiaKit

/// The `logic` request's fast path. Hosts evaluate the same rules over and
/// over; parsing and compiling a rule costs several times its evaluation.
/// A request of the plain shape `{"op":"logic","rule":R,"data":D}` (in any
/// order, names unescaped) whose
/// rule text was compiled before reuses that program, and only its data is
/// parsed. Anything else (another member, an escaped key, a rule not yet
/// seen, any failure) takes the general path, which answers exactly as it
/// would without the cache.
final class LogicRuleCache: Sendable {
    /// Bounds the memory hostile requests can make the cache hold: at most
    /// `capacity` rules of at most `maxRuleBytes` each.
    static let capacity = 1024
    static let maxRuleBytes = 4096

    private struct Entry {
        let text: [UInt8]
        let rule: LogicRule
    }

    private let entries = Mutex<[UInt64: Entry]>([:])

    func rule(for text: UnsafeBufferPointer<UInt8>, hash: UInt64) -> LogicRule? {
        entries.withLock { entries in
            guard let entry = entries[hash], entry.text.count == text.count, let other = text.baseAddress,
                  entry.text.withUnsafeBufferPointer({ mine in mine.baseAddress.map { memcmp($0, other, text.count) == 0 } ?? false })
            else { return nil }
            return entry.rule
        }
    }

    func insert(_ rule: LogicRule, text: UnsafeBufferPointer<UInt8>, hash: UInt64) {
        guard text.count <= Self.maxRuleBytes else { return }
        let entry = Entry(text: Array(text), rule: rule)
        entries.withLock { entries in
            // Forgetting everything at once keeps the bound simple; a host
            // with more live rules than this pays the general path's price.
            if entries.count >= Self.capacity && entries[hash] == nil { entries.removeAll(keepingCapacity: true) }
            entries[hash] = entry
        }
    }

    var count: Int { entries.withLock { $0.count } }

    /// FNV-1a: cheap for the short texts rules are, and nothing here needs
    /// resistance to chosen collisions (a colliding text is compared, then replaced).
    static func hash(_ text: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text {
            h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return h
    }
}

extension Runtime {
    /// Writes the answer to a plain `logic` request and returns true, or
    /// returns false, having written nothing, for the general path.
    public func fastLogic(_ bytes: UnsafeBufferPointer<UInt8>, into writer: inout JSONWriter) -> Bool {
        guard bytes.count <= limits.requestBytes, let (rule, data) = LogicRequestShape.members(bytes) else { return false }
        let ruleText = UnsafeBufferPointer(rebasing: bytes[rule])
        let hash = LogicRuleCache.hash(ruleText)
        // Members sit one level below the request, as the general parser counts depth.
        let depth = limits.depth + Limits.wrapping - 1
        let compiled: LogicRule
        if let cached = logicRules.rule(for: ruleText, hash: hash) {
            compiled = cached
        } else {
            guard let value = try? JSONParser.parse(ruleText, maxDepth: depth),
                  let made = try? LogicRule(value, at: "/rule") else { return false }
            logicRules.insert(made, text: ruleText, hash: hash)
            compiled = made
        }
        var input = JSON.null
        if let data {
            guard let value = try? JSONParser.parse(UnsafeBufferPointer(rebasing: bytes[data]), maxDepth: depth) else { return false }
            input = value
        }
        guard let result = try? compiled.evaluate(input, budget: limits.logicSteps) else { return false }
        writer.raw(#"{"ok":true,"result":"#)
        writer.write(result)
        writer.raw("}")
        return true
    }
}

/// Finds the members of `{"op":"logic","rule":R,"data":D}` without building
/// them. It only delimits values; the parser checks whatever it then reads,
/// and a rule's text is trusted only when it equals a text that parsed before.
enum LogicRequestShape {
    static func members(_ bytes: UnsafeBufferPointer<UInt8>) -> (rule: Range<Int>, data: Range<Int>?)? {
        var i = 0
        let n = bytes.count
        func space() { while i < n, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 } }
        space()
        guard i < n, bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        var op = false
        var rule: Range<Int>?
        var data: Range<Int>?
        while true {
            space()
            guard let key = plainKey(bytes, at: &i) else { return nil }
            space()
            guard i < n, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            space()
            let start = i
            guard let end = valueEnd(bytes, from: i) else { return nil }
            i = end
            switch key {
            case .op:
                guard !op, isString(bytes, start..<end, Op.logic.name) else { return nil }
                op = true
            case .rule:
                guard rule == nil else { return nil }
                rule = start..<end
            case .data:
                guard data == nil else { return nil }
                data = start..<end
            }
            space()
            guard i < n else { return nil }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            guard bytes[i] == UInt8(ascii: "}") else { return nil }
            i += 1
            break
        }
        space()
        guard i == n, op, let rule else { return nil }
        return (rule, data)
    }

    private enum Key { case op, rule, data }

    /// `"op"`, `"rule"` or `"data"`, written without escapes.
    private static func plainKey(_ bytes: UnsafeBufferPointer<UInt8>, at i: inout Int) -> Key? {
        if equals(bytes, i..<(i + 4), #""op""#) { i += 4; return .op }
        if equals(bytes, i..<(i + 6), #""rule""#) { i += 6; return .rule }
        if equals(bytes, i..<(i + 6), #""data""#) { i += 6; return .data }
        return nil
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.upperBound <= bytes.count, range.count == text.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
        return memcmp(base + range.lowerBound, text.utf8Start, range.count) == 0
    }

    /// Whether the value in `range` is the string `text`, written without escapes.
    private static func isString(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ text: String) -> Bool {
        let quote = UInt8(ascii: "\"")
        guard range.count == text.utf8.count + 2, range.upperBound <= bytes.count,
              bytes[range.lowerBound] == quote, bytes[range.upperBound - 1] == quote else { return false }
        return text.utf8.elementsEqual(bytes[(range.lowerBound + 1)..<(range.upperBound - 1)])
    }

    /// Where the value starting at `start` ends; nil for anything but a
    /// well-delimited value. Nesting is bounded by counting, not recursion.
    private static func valueEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var i = start
        var open = 0
        let n = bytes.count
        repeat {
            guard i < n else { return nil }
            switch bytes[i] {
            case UInt8(ascii: "\""):
                i += 1
                while i < n, bytes[i] != UInt8(ascii: "\"") {
                    i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard i < n else { return nil }
                i += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                open += 1
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard open > 0 else { return nil }
                open -= 1
                i += 1
            case UInt8(ascii: ","), UInt8(ascii: ":"), 0x20, 0x0A, 0x0D, 0x09:
                guard open > 0 else { return nil }
                i += 1
            default:
                // A number or a literal: up to the next delimiter.
                i += 1
                while i < n, !isDelimiter(bytes[i]) { i += 1 }
            }
        } while open > 0
        return i
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"), UInt8(ascii: "\""),
             UInt8(ascii: "{"), UInt8(ascii: "["), 0x20, 0x0A, 0x0D, 0x09: true
        default: false
        }
    }
}
