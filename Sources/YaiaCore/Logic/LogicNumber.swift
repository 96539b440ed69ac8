import YaiaKit

// LogicNumber: a JavaScript number as the operators compute with it.

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
