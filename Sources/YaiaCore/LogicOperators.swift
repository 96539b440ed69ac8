/// The operators, with JavaScript's coercions as the reference
/// implementation of JSON Logic has them (docs/logic.md says where Yaia
/// differs: integers stay exact, NaN and infinities become null, arrays and
/// objects compare by content, strings count Unicode scalars).

/// A JavaScript number as Yaia keeps it: an exact integer while it can be one.
enum LogicNumber {
    case int(Int64)
    case double(Double)

    static let nan = LogicNumber.double(.nan)

    var double: Double {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        }
    }

    var isNaN: Bool { if case .double(let d) = self { return d.isNaN } else { return false } }

    /// The JSON value: whole numbers as integers, NaN and infinities as null.
    var json: JSON {
        switch self {
        case .int(let i): return .int(i)
        case .double(let d):
            guard d.isFinite else { return .null }
            if let i = Int64(exactly: d) { return .int(i) }
            return .double(d)
        }
    }

    /// -1, 0 or 1; nil when either is NaN. Exact between integers and doubles.
    static func compare(_ a: LogicNumber, _ b: LogicNumber) -> Int? {
        switch (a, b) {
        case let (.int(x), .int(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.double(x), .double(y)):
            if x.isNaN || y.isNaN { return nil }
            return x < y ? -1 : (x > y ? 1 : 0)
        case let (.int(x), .double(y)): return compare(x, y)
        case let (.double(x), .int(y)): return compare(y, x).map { -$0 }
        }
    }

    static func compare(_ i: Int64, _ d: Double) -> Int? {
        if d.isNaN { return nil }
        if d >= 9223372036854775808.0 { return -1 }
        if d < -9223372036854775808.0 { return 1 }
        let floor = d.rounded(.down)
        let f = Int64(floor)
        if i != f { return i < f ? -1 : 1 }
        return d > floor ? -1 : 0
    }

    static func + (a: LogicNumber, b: LogicNumber) -> LogicNumber {
        if case .int(let x) = a, case .int(let y) = b {
            let (r, o) = x.addingReportingOverflow(y)
            if !o { return .int(r) }
        }
        return .double(a.double + b.double)
    }

    static func - (a: LogicNumber, b: LogicNumber) -> LogicNumber {
        if case .int(let x) = a, case .int(let y) = b {
            let (r, o) = x.subtractingReportingOverflow(y)
            if !o { return .int(r) }
        }
        return .double(a.double - b.double)
    }

    static func * (a: LogicNumber, b: LogicNumber) -> LogicNumber {
        if case .int(let x) = a, case .int(let y) = b {
            let (r, o) = x.multipliedReportingOverflow(by: y)
            if !o { return .int(r) }
        }
        return .double(a.double * b.double)
    }

    static func / (a: LogicNumber, b: LogicNumber) -> LogicNumber {
        if case .int(let x) = a, case .int(let y) = b, y != 0, !(x == .min && y == -1), x % y == 0 {
            return .int(x / y)
        }
        return .double(a.double / b.double)
    }

    /// JavaScript's %: the sign of the dividend; by zero it is NaN.
    static func % (a: LogicNumber, b: LogicNumber) -> LogicNumber {
        if case .int(let x) = a, case .int(let y) = b {
            if y == 0 { return .nan }
            return .int(x.remainderReportingOverflow(dividingBy: y).partialValue)
        }
        return .double(a.double.truncatingRemainder(dividingBy: b.double))
    }

    static prefix func - (a: LogicNumber) -> LogicNumber {
        if case .int(let x) = a, x != .min { return .int(-x) }
        return .double(-a.double)
    }
}

extension LogicMachine {
    // MARK: - Coercions

    /// JSON Logic's truthiness: JavaScript's, except that an empty array is false.
    @inline(__always)
    static func truthy(_ value: JSON) -> Bool {
        switch value {
        case .null: return false
        case .bool(let b): return b
        case .int(let i): return i != 0
        case .uint(let u): return u != 0
        case .double(let d): return d != 0 && !d.isNaN
        case .string(let s): return !s.isEmpty
        case .array(let a): return !a.isEmpty
        case .object: return true
        }
    }

    /// JavaScript's String(value). Arrays join their elements with commas
    /// (null elements as ""), objects are "[object Object]". Paid for by size.
    mutating func text(_ value: JSON) throws(LogicStop) -> String {
        switch value {
        case .string(let s): return s
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int, .uint, .double: return LogicMachine.numberText(value)
        case .object: return "[object Object]"
        case .array:
            var out = ""
            try appendText(value, to: &out)
            return out
        }
    }

    /// As `text`, but null is "" (as in an array's elements, `cat` and `join`).
    mutating func appendText(_ value: JSON, to out: inout String) throws(LogicStop) {
        switch value {
        case .null: break
        case .string(let s):
            try charge(s.utf8.count >> 7)
            out += s
        case .array(let a):
            try charge(1 + a.count >> 4)
            for (i, x) in a.enumerated() {
                if i > 0 { out += "," }
                try appendText(x, to: &out)
            }
        default:
            out += try text(value)
        }
    }

    /// JavaScript's ToNumber.
    mutating func number(_ value: JSON) throws(LogicStop) -> LogicNumber {
        switch value {
        case .int(let i): return .int(i)
        case .uint(let u): return .double(Double(u))
        case .double(let d): return .double(d)
        case .null: return .int(0)
        case .bool(let b): return .int(b ? 1 : 0)
        case .string(let s):
            try charge(s.utf8.count >> 7)
            return LogicMachine.stringToNumber(s)
        case .array: return LogicMachine.stringToNumber(try text(value))
        case .object: return .nan
        }
    }

    /// JavaScript's parseFloat: the longest decimal prefix of the value's text.
    mutating func parseFloat(_ value: JSON) throws(LogicStop) -> LogicNumber {
        switch value {
        case .int(let i): return .int(i)
        case .uint(let u): return .double(Double(u))
        case .double(let d): return .double(d)
        case .string(let s):
            try charge(s.utf8.count >> 7)
            return LogicMachine.parseFloat(s)
        case .null, .bool, .object: return .nan
        case .array: return LogicMachine.parseFloat(try text(value))
        }
    }

    /// JavaScript's ToPrimitive: arrays and objects become their text.
    mutating func primitive(_ value: JSON) throws(LogicStop) -> JSON {
        switch value {
        case .array, .object: return .string(try text(value))
        default: return value
        }
    }

    // MARK: - Comparisons

    /// JavaScript's ===, except that arrays and objects are equal when their
    /// contents are. Paid for by what it visits; what is shared is equal at once.
    mutating func same(_ a: JSON, _ b: JSON) throws(LogicStop) -> Bool {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x == y
        case (.int, _), (.uint, _), (.double, _):
            guard b.isNumber else { return false }
            return LogicNumber.compare(LogicMachine.plainNumber(a), LogicMachine.plainNumber(b)) == 0
        case (.string(let x), .string(let y)):
            try charge(Swift.min(x.utf8.count, y.utf8.count) >> 7)
            return compareKeys(x, y) == 0
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return false }
            if LogicMachine.shareStorage(x, y) { return true }
            try charge(1 + x.count >> 4)
            for i in x.indices where !(try same(x[i], y[i])) { return false }
            return true
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            if LogicMachine.shareStorage(x.members, y.members) { return true }
            try charge(1 + x.count >> 4)
            for (m, n) in zip(x.members, y.members) {
                guard compareKeys(m.key, n.key) == 0, try same(m.value, n.value) else { return false }
            }
            return true
        default:
            return false
        }
    }

    static func shareStorage<T>(_ x: [T], _ y: [T]) -> Bool {
        x.withUnsafeBufferPointer { p in y.withUnsafeBufferPointer { q in p.baseAddress == q.baseAddress } }
    }

    static func plainNumber(_ value: JSON) -> LogicNumber {
        switch value {
        case .int(let i): return .int(i)
        case .uint(let u): return .double(Double(u))
        case .double(let d): return .double(d)
        default: return .nan
        }
    }

    /// JavaScript's ==, except that arrays and objects are equal to each other when their contents are.
    mutating func looseEquals(_ a: JSON, _ b: JSON) throws(LogicStop) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.int, .int), (.int, .uint), (.int, .double), (.uint, .int), (.uint, .uint), (.uint, .double),
             (.double, .int), (.double, .uint), (.double, .double),
             (.string, .string), (.bool, .bool), (.array, .array), (.object, .object):
            return try same(a, b)
        case (.array, .object), (.object, .array):
            return false
        case (.bool(let x), _):
            return try looseEquals(.int(x ? 1 : 0), b)
        case (_, .bool(let y)):
            return try looseEquals(a, .int(y ? 1 : 0))
        case (.string, _) where b.isNumber:
            return LogicNumber.compare(try number(a), LogicMachine.plainNumber(b)) == 0
        case (_, .string) where a.isNumber:
            return LogicNumber.compare(LogicMachine.plainNumber(a), try number(b)) == 0
        case (.array, _), (.object, _):
            return try looseEquals(.string(try text(a)), b)
        default:
            return try looseEquals(a, .string(try text(b)))
        }
    }

    /// JavaScript's a < b (or a <= b): strings by UTF-16 code units, anything else as numbers; NaN is false.
    mutating func less(_ a: JSON, _ b: JSON, orEqual: Bool) throws(LogicStop) -> Bool {
        if case .int(let x) = a, case .int(let y) = b { return orEqual ? x <= y : x < y }
        let pa = try primitive(a)
        let pb = try primitive(b)
        let order: Int?
        if case .string(let x) = pa, case .string(let y) = pb {
            try charge(Swift.min(x.utf8.count, y.utf8.count) >> 7)
            order = LogicMachine.utf16Order(x, y)
        } else {
            order = LogicNumber.compare(try number(pa), try number(pb))
        }
        guard let order else { return false }
        return orEqual ? order <= 0 : order < 0
    }

    /// Strings in UTF-16 code-unit order, as JavaScript compares them. It is
    /// UTF-8 byte order but for characters past U+FFFF, whose surrogates sort
    /// before U+E000...U+FFFF.
    static func utf16Order(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let n = Swift.min(x.count, y.count)
                var i = 0
                while i < n {
                    let c = x[i], d = y[i]
                    if c != d {
                        if c >= 0xF0 && (d == 0xEE || d == 0xEF) { return -1 }
                        if d >= 0xF0 && (c == 0xEE || c == 0xEF) { return 1 }
                        return c < d ? -1 : 1
                    }
                    i += 1
                }
                return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
            }
        }
    }

    // MARK: - Operators

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
            case .lower: return .string(s.lowercased())
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
            let absent = try missing(keys, scope)
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

    /// Where the bytes of `needle` first occur in `s`.
    static func find(_ needle: String, in s: String, from start: Int = 0) -> Int? {
        var s = s, needle = needle
        return s.withUTF8 { h in
            needle.withUTF8 { n -> Int? in
                guard n.count > 0 else { return start <= h.count ? start : nil }
                guard h.count >= n.count else { return nil }
                let first = n[0]
                var i = start
                let last = h.count - n.count
                outer: while i <= last {
                    if h[i] == first {
                        var k = 1
                        while k < n.count {
                            if h[i + k] != n[k] { i += 1; continue outer }
                            k += 1
                        }
                        return i
                    }
                    i += 1
                }
                return nil
            }
        }
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
        if case .array(let list)? = args.first { keys = list } else { keys = args }
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

    // MARK: - Extras that refuse values

    mutating func extra(_ op: LogicOp, _ args: [JSON], at: String, checked: Bool) throws(LogicStop) -> JSON {
        func fail(_ message: String) -> LogicStop { .failure(message, at: at) }
        func list(_ name: String) throws(LogicStop) -> [JSON] {
            switch args[0] {
            case .array(let items):
                try charge(items.count >> 4)
                return items
            case .null: return []
            default: throw fail("\"\(name)\" takes a list (or null) first, not \(args[0].kindName)")
            }
        }
        switch op {
        case .length:
            switch args[0] {
            case .string(let s):
                try charge(s.utf8.count >> 7)
                return .int(Int64(s.unicodeScalars.count))
            case .array(let a): return .int(Int64(a.count))
            case .object(let o): return .int(Int64(o.count))
            case .null: return 0
            default: throw fail("\"length\" takes a string, a list or an object, not \(args[0].kindName)")
            }
        case .join:
            let items = try list("join")
            let separator = args.count > 1 ? try text(args[1]) : ","
            var out = ""
            for (i, x) in items.enumerated() {
                if i > 0 { out += separator }
                try appendText(x, to: &out)
            }
            try charge(out.utf8.count >> 7)
            return .string(out)
        case .append:
            var items = try list("append")
            if checked { try checkNesting(args[1]) }
            try charge(items.count >> 4)
            items.append(args[1])
            return .array(items)
        case .remove:
            var items = try list("remove")
            guard let index = args[1].int64Value else {
                throw fail("\"remove\" takes a whole number as its index, not \(args[1].kindName)")
            }
            let i = index < 0 ? Int64(items.count) + index : index
            guard i >= 0, i < items.count else { return .array(items) }
            items.remove(at: Int(i))
            return .array(items)
        case .without:
            let field = try text(args[1])
            var kept: [JSON] = []
            for item in try list("without") {
                if case .object(let o) = item, let value = o[field], try same(value, args[2]) { continue }
                kept.append(item)
            }
            return .array(kept)
        case .replaceById:
            var items = try list("replaceById")
            guard case .object(let replacement) = args[1], let id = replacement["id"] else {
                throw fail("\"replaceById\" takes an object with an \"id\" as its second argument, not \(args[1].kindName)")
            }
            if checked { try checkNesting(args[1]) }
            for i in items.indices {
                if case .object(let o) = items[i], let other = o["id"], try same(other, id) { items[i] = args[1] }
            }
            return .array(items)
        case .set:
            var object: JSONObject
            switch args[0] {
            case .object(let o):
                try charge(o.count >> 4)
                object = o
            case .null: object = JSONObject()
            default: throw fail("\"set\" takes an object (or null) first, not \(args[0].kindName)")
            }
            if checked { try checkNesting(args[2]) }
            object[try text(args[1])] = args[2]
            return .object(object)
        default:
            return .null
        }
    }

    // MARK: - Numbers and text

    /// JavaScript's Number.prototype.toString for a JSON number.
    static func numberText(_ value: JSON) -> String {
        switch value {
        case .int(let i): return String(i)
        case .uint(let u): return String(u)
        case .double(let d): return doubleText(d)
        default: return ""
        }
    }

    static func doubleText(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        if d == 0 { return "0" }
        if abs(d) < 9007199254740992, let i = Int64(exactly: d) { return String(i) }
        // Swift prints the shortest digits that read back; lay them out as JavaScript does.
        let parts = abs(d).description.split(separator: "e", maxSplits: 1)
        let exponent = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        var digits: [UInt8] = []
        var pointAt: Int?
        for c in parts[0].utf8 {
            if c == UInt8(ascii: ".") { pointAt = digits.count } else { digits.append(c) }
        }
        var n = (pointAt ?? digits.count) + exponent
        while digits.count > 1, digits.first == UInt8(ascii: "0") { digits.removeFirst(); n -= 1 }
        while digits.count > 1, digits.last == UInt8(ascii: "0") { digits.removeLast() }
        let k = digits.count
        let zero = UInt8(ascii: "0"), point = UInt8(ascii: ".")
        var out: [UInt8] = d < 0 ? [UInt8(ascii: "-")] : []
        if k <= n && n <= 21 {
            out.append(contentsOf: digits)
            out.append(contentsOf: repeatElement(zero, count: n - k))
        } else if 0 < n && n <= 21 {
            out.append(contentsOf: digits[..<n])
            out.append(point)
            out.append(contentsOf: digits[n...])
        } else if -6 < n && n <= 0 {
            out.append(zero)
            out.append(point)
            out.append(contentsOf: repeatElement(zero, count: -n))
            out.append(contentsOf: digits)
        } else {
            out.append(digits[0])
            if k > 1 {
                out.append(point)
                out.append(contentsOf: digits[1...])
            }
            out.append(contentsOf: "e\(n - 1 < 0 ? "-" : "+")\(abs(n - 1))".utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes of JavaScript white space (WhiteSpace and LineTerminator) at `i`, or 0.
    static func spaceLength(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        let c = b[i]
        if c == 0x20 || (c >= 0x09 && c <= 0x0D) { return 1 }
        guard c >= 0xC2 else { return 0 }
        let n = b.count - i
        if c == 0xC2 { return n >= 2 && b[i + 1] == 0xA0 ? 2 : 0 }
        guard n >= 3 else { return 0 }
        let (x, y) = (b[i + 1], b[i + 2])
        switch c {
        case 0xE1: return x == 0x9A && y == 0x80 ? 3 : 0
        case 0xE2:
            if x == 0x80 && (y <= 0x8A || y == 0xA8 || y == 0xA9 || y == 0xAF) { return 3 }
            return x == 0x81 && y == 0x9F ? 3 : 0
        case 0xE3: return x == 0x80 && y == 0x80 ? 3 : 0
        case 0xEF: return x == 0xBB && y == 0xBF ? 3 : 0
        default: return 0
        }
    }

    /// The bounds of `b` without JavaScript white space at either end.
    static func trimmedRange(_ b: UnsafeBufferPointer<UInt8>, leadingOnly: Bool = false) -> Range<Int> {
        var lo = 0
        while lo < b.count {
            let n = spaceLength(b, lo)
            if n == 0 { break }
            lo += n
        }
        var hi = b.count
        if !leadingOnly {
            outer: while hi > lo {
                for n in 1...3 where hi - n >= lo && spaceLength(b, hi - n) == n {
                    hi -= n
                    continue outer
                }
                break
            }
        }
        return lo..<hi
    }

    static func trimmed(_ s: String) -> String {
        var s = s
        return s.withUTF8 { b in
            let r = trimmedRange(b)
            return r.count == b.count ? nil : String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self)
        } ?? s
    }

    /// JavaScript's StringToNumber: white space around a decimal, hexadecimal,
    /// octal or binary literal, or "Infinity"; "" is 0; anything else NaN.
    static func stringToNumber(_ s: String) -> LogicNumber {
        var s = s
        return s.withUTF8 { whole in
            let r = trimmedRange(whole)
            if r.isEmpty { return .int(0) }
            let b = UnsafeBufferPointer(rebasing: whole[r])
            if b.count > 2, b[0] == UInt8(ascii: "0") {
                switch b[1] | 0x20 {
                case UInt8(ascii: "x"): return radix(b, 16)
                case UInt8(ascii: "o"): return radix(b, 8)
                case UInt8(ascii: "b"): return radix(b, 2)
                default: break
                }
            }
            guard let (n, end) = decimal(b), end == b.count else { return .nan }
            return n
        }
    }

    static func parseFloat(_ s: String) -> LogicNumber {
        var s = s
        return s.withUTF8 { whole in
            let r = trimmedRange(whole, leadingOnly: true)
            return decimal(UnsafeBufferPointer(rebasing: whole[r]))?.0 ?? .nan
        }
    }

    static func radix(_ b: UnsafeBufferPointer<UInt8>, _ base: UInt8) -> LogicNumber {
        var exact: UInt64 = 0
        var approx = 0.0
        var overflow = false
        for c in b[2...] {
            let digit: UInt8
            switch c {
            case 0x30...0x39: digit = c - 0x30
            case 0x61...0x66: digit = c - 0x61 + 10
            case 0x41...0x46: digit = c - 0x41 + 10
            default: return .nan
            }
            guard digit < base else { return .nan }
            approx = approx * Double(base) + Double(digit)
            if !overflow {
                let (m, o1) = exact.multipliedReportingOverflow(by: UInt64(base))
                let (a, o2) = m.addingReportingOverflow(UInt64(digit))
                if o1 || o2 { overflow = true } else { exact = a }
            }
        }
        if !overflow, let i = Int64(exactly: exact) { return .int(i) }
        return .double(approx)
    }

    /// The longest StrDecimalLiteral at the start of `b`, and where it ends.
    static func decimal(_ b: UnsafeBufferPointer<UInt8>) -> (LogicNumber, Int)? {
        let n = b.count
        var i = 0
        var negative = false
        if i < n && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) {
            negative = b[i] == UInt8(ascii: "-")
            i += 1
        }
        let infinity = Array("Infinity".utf8)
        if n - i >= 8 && infinity.indices.allSatisfy({ b[i + $0] == infinity[$0] }) {
            return (.double(negative ? -.infinity : .infinity), i + 8)
        }
        @inline(__always) func isDigit(_ k: Int) -> Bool { k < n && b[k] >= 0x30 && b[k] <= 0x39 }
        let intStart = i
        while isDigit(i) { i += 1 }
        let intDigits = i - intStart
        var whole = true
        if i < n && b[i] == UInt8(ascii: ".") {
            var k = i + 1
            while isDigit(k) { k += 1 }
            if intDigits > 0 || k > i + 1 {
                i = k
                whole = false
            }
        }
        guard intDigits > 0 || !whole else { return nil }
        if i < n && (b[i] | 0x20) == UInt8(ascii: "e") {
            var k = i + 1
            if k < n && (b[k] == UInt8(ascii: "+") || b[k] == UInt8(ascii: "-")) { k += 1 }
            let digitsAt = k
            while isDigit(k) { k += 1 }
            if k > digitsAt {
                i = k
                whole = false
            }
        }
        if whole {
            var value: Int64 = 0
            var fits = true
            for k in intStart..<i {
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.subtractingReportingOverflow(Int64(b[k] - 0x30))
                if o1 || o2 { fits = false; break }
                value = a
            }
            if fits {
                if !negative {
                    if value == .min { fits = false } else { value = -value }
                }
                if fits { return (.int(value), i) }
            }
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: b[0..<i]), as: UTF8.self)
        guard let d = Double(literal) else { return nil }
        return (.double(d), i)
    }
}
