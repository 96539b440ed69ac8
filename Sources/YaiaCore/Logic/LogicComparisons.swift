import YaiaKit

// JavaScript's comparisons as the operators apply them: ===, == and <, by content for arrays and objects.

extension LogicMachine {
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
            if x.sharesStorage(with: y) { return true }
            try charge(1 + x.count >> 4)
            return try x.sameElements(as: y) { p, q throws(LogicStop) in try same(p, q) }
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            if x.sharesStorage(with: y) { return true }
            try charge(1 + x.count >> 4)
            for (m, n) in zip(x.members, y.members) {
                guard compareKeys(m.key, n.key) == 0, try same(m.value, n.value) else { return false }
            }
            return true
        default:
            return false
        }
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
}
