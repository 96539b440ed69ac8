import YaiaKit

/// The operators, with JavaScript's coercions as the reference
/// implementation of JSON Logic has them (docs/logic.md says where Yaia
/// differs: integers stay exact, NaN and infinities become null, arrays and
/// objects compare by content, strings count Unicode scalars).

extension LogicMachine {
    mutating func unary(_ op: LogicOp, _ x: JSON, _ scope: LogicScope) throws(LogicStop) -> JSON {
        switch op {
        case .not: return .bool(!LogicMachine.truthy(x))
        case .truthy: return .bool(LogicMachine.truthy(x))
        case .subtract: return (-(try number(x))).json
        case .add: return (LogicNumber.int(0) + (try parseFloat(x))).json
        // JavaScript's reduce of one element without an initial value returns it untouched.
        case .multiply, .log: return x
        case .max, .min: return try number(x).json
        case .cat:
            var out = ""
            try appendText(x, to: &out)
            return .string(out)
        case .lower, .upper, .trim:
            var s = ""
            try appendText(x, to: &s)
            try charge(s.utf8.count >> 7)
            switch op {
            case .lower: return .string(LogicMachine.lowered(s))
            case .upper: return .string(s.uppercased())
            default: return .string(LogicMachine.trimmed(s))
            }
        default:
            return try nary(op, [x], scope, checked: false)
        }
    }

    mutating func binary(_ op: LogicOp, _ x: JSON, _ y: JSON, _ scope: LogicScope) throws(LogicStop) -> JSON {
        switch op {
        case .equal: return .bool(try looseEquals(x, y))
        case .notEqual: return .bool(!(try looseEquals(x, y)))
        case .strictEqual: return .bool(try same(x, y))
        case .strictNotEqual: return .bool(!(try same(x, y)))
        case .less: return .bool(try less(x, y, orEqual: false))
        case .lessOrEqual: return .bool(try less(x, y, orEqual: true))
        case .greater: return .bool(try less(y, x, orEqual: false))
        case .greaterOrEqual: return .bool(try less(y, x, orEqual: true))
        case .add: return (try parseFloat(x) + (try parseFloat(y))).json
        case .multiply: return (try parseFloat(x) * (try parseFloat(y))).json
        case .subtract: return (try number(x) - (try number(y))).json
        case .divide: return (try number(x) / (try number(y))).json
        case .modulo: return (try number(x) % (try number(y))).json
        case .in: return .bool(try contains(y, x))
        case .inLowered: return .bool(try containsLowered(y, x, scope))
        case .cat:
            var out = ""
            try appendText(x, to: &out)
            try appendText(y, to: &out)
            return .string(out)
        default:
            return try nary(op, [x, y], scope, checked: false)
        }
    }

    mutating func nary(_ op: LogicOp, _ args: [JSON], _ scope: LogicScope, checked: Bool) throws(LogicStop) -> JSON {
        switch op {
        case .add:
            var sum = LogicNumber.int(0)
            for x in args { sum = sum + (try parseFloat(x)) }
            return sum.json
        case .multiply:
            guard args.count > 1 else { return args.first ?? .null }
            var product = try parseFloat(args[0])
            for x in args.dropFirst() { product = product * (try parseFloat(x)) }
            return product.json
        case .max, .min:
            var best: LogicNumber?
            for x in args {
                let n = try number(x)
                if n.isNaN { return .null }
                if let b = best, let order = LogicNumber.compare(n, b), op == .max ? order <= 0 : order >= 0 { continue }
                best = n
            }
            return best?.json ?? .null
        case .less, .lessOrEqual:
            let orEqual = op == .lessOrEqual
            if args.count < 3 { return .bool(try less(args[0], args[1], orEqual: orEqual)) }
            guard try less(args[0], args[1], orEqual: orEqual) else { return false }
            return .bool(try less(args[1], args[2], orEqual: orEqual))
        case .cat:
            var out = ""
            for x in args { try appendText(x, to: &out) }
            return .string(out)
        case .merge:
            var out: [JSON] = []
            for x in args {
                if case .array(let items) = x {
                    try charge(items.count)
                    out.append(contentsOf: items)
                } else {
                    if checked { try checkNesting(x) }
                    out.append(x)
                }
            }
            return .array(out)
        case .substr:
            return .string(try substr(args))
        case .missing:
            return .array(try missing(args, scope))
        case .missingSome:
            let options = args[1]
            guard case .array(let keys) = options else { return .array(try missing([options], scope)) }
            let absent = try missing(keys.elements, scope)
            let found = Int64(keys.count - absent.count)
            return try less(args[0], .int(found), orEqual: true) ? .array([]) : .array(absent)
        case .now:
            return data["env"]?["now"] ?? .null
        case .startsWith, .endsWith:
            let s = try text(args[0]), affix = try text(args[1])
            try charge(affix.utf8.count >> 7)
            return .bool(op == .startsWith ? s.utf8.starts(with: affix.utf8) : s.utf8.reversed().starts(with: affix.utf8.reversed()))
        case .split:
            return try split(try text(args[0]), by: try text(args[1]))
        default:
            // Compiled as unary or binary: never here.
            return .null
        }
    }

    /// JSON Logic's `in`: a substring of a string, or an element (===) of an array.
    mutating func contains(_ haystack: JSON, _ needle: JSON) throws(LogicStop) -> Bool {
        switch haystack {
        case .string(let s):
            // As String.prototype.includes: the empty string is in every string, "" too.
            try charge(s.utf8.count >> 7)
            return LogicMachine.find(try text(needle), in: s) != nil
        case .array(let items):
            try charge(items.count >> 4)
            for item in items where try same(item, needle) { return true }
            return false
        default:
            return false
        }
    }

    /// `s.lowercased()`: a search lowers the text of every item it passes,
    /// so ASCII text is lowered byte by byte, and kept as it is (no copy)
    /// when it has no capital.
    static func lowered(_ s: String) -> String {
        var s = s
        let capitals: Bool? = s.withUTF8 { b in
            var found = false
            for c in b {
                if c >= 0x80 { return nil }
                if c &- 0x41 < 26 { found = true }
            }
            return found
        }
        switch capitals {
        case false?: return s
        case true?:
            return s.withUTF8 { b in
                String(unsafeUninitializedCapacity: b.count) { out in
                    for i in 0..<b.count { out[i] = b[i] &- 0x41 < 26 ? b[i] | 0x20 : b[i] }
                    return b.count
                }
            }
        case nil: return s.lowercased()
        }
    }

    /// Where the bytes of `needle` first occur in `s`.
    static func find(_ needle: String, in s: String, from start: Int = 0) -> Int? {
        var s = s, needle = needle
        return s.withUTF8 { h in needle.withUTF8 { firstIndex(of: $0, in: h, from: start, folding: false) } }
    }

    /// Where `n` first occurs in `h` from `start`; `folding`: compared with
    /// `h`'s ASCII capitals lowered, as in `lowered(h)` for ASCII text.
    @inline(__always)
    static func firstIndex(of n: UnsafeBufferPointer<UInt8>, in h: UnsafeBufferPointer<UInt8>, from start: Int, folding: Bool) -> Int? {
        @inline(__always) func byte(_ i: Int) -> UInt8 {
            let c = h[i]
            return folding && c &- 0x41 < 26 ? c | 0x20 : c
        }
        guard n.count > 0 else { return start <= h.count ? start : nil }
        guard h.count >= n.count else { return nil }
        let first = n[0]
        var i = start
        let last = h.count - n.count
        outer: while i <= last {
            if byte(i) == first {
                var k = 1
                while k < n.count {
                    if byte(i + k) != n[k] { i += 1; continue outer }
                    k += 1
                }
                return i
            }
            i += 1
        }
        return nil
    }

    /// JavaScript's substr(start, length), as JSON Logic extends it: a
    /// negative length drops that many from the end. Unicode scalars count.
    mutating func substr(_ args: [JSON]) throws(LogicStop) -> String {
        let source = try text(args[0])
        try charge(source.utf8.count >> 7)
        let scalars = source.unicodeScalars
        let size = scalars.count
        let start = LogicMachine.clampedInteger(try number(args[1]))
        var from = start < 0 ? Swift.max(size + start, 0) : Swift.min(start, size)
        var count = size - from
        if args.count > 2 {
            let n = try number(args[2])
            if LogicNumber.compare(n, .int(0)) == -1 {
                count = Swift.max(count + LogicMachine.clampedInteger(n), 0)
            } else {
                count = Swift.min(Swift.max(LogicMachine.clampedInteger(n), 0), count)
            }
        }
        if from == 0 && count == size { return source }
        from = Swift.min(from, size)
        let lower = scalars.index(scalars.startIndex, offsetBy: from)
        let upper = scalars.index(lower, offsetBy: count)
        return String(scalars[lower..<upper])
    }

    /// JavaScript's ToIntegerOrInfinity, clamped to Int: NaN is 0.
    static func clampedInteger(_ n: LogicNumber) -> Int {
        switch n {
        case .int(let i): return Int(clamping: i)
        case .double(let d):
            if d.isNaN { return 0 }
            if d >= 9.0e18 { return Int.max / 2 }
            if d <= -9.0e18 { return Int.min / 2 }
            return Int(d.rounded(.towardZero))
        }
    }

    /// The keys (a list, or the arguments themselves) whose `var` is null, "" or absent.
    mutating func missing(_ args: [JSON], _ scope: LogicScope) throws(LogicStop) -> [JSON] {
        let keys: [JSON]
        if case .array(let list)? = args.first { keys = list.elements } else { keys = args }
        try charge(keys.count)
        var absent: [JSON] = []
        for key in keys {
            switch try lookup(try path(key), in: scope) {
            case nil, .null?, .string("")?: absent.append(key)
            default: break
            }
        }
        return absent
    }

    mutating func split(_ s: String, by separator: String) throws(LogicStop) -> JSON {
        try charge(s.utf8.count >> 7)
        var parts: [JSON] = []
        if separator.isEmpty {
            try charge(s.utf8.count)
            for u in s.unicodeScalars { parts.append(.string(String(u))) }
            return .array(parts)
        }
        let bytes = Array(s.utf8)
        let sep = separator.utf8.count
        var start = 0
        while let i = LogicMachine.find(separator, in: s, from: start) {
            try charge(1)
            parts.append(.string(String(decoding: bytes[start..<i], as: UTF8.self)))
            start = i + sep
        }
        parts.append(.string(String(decoding: bytes[start...], as: UTF8.self)))
        return .array(parts)
    }
}
