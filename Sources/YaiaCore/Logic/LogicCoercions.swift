import YaiaKit

// JavaScript's coercions as the operators apply them: truthiness, text, numbers, primitives.

extension LogicMachine {
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
}
