import YaiaKit

// Numbers as JavaScript writes and reads them: Number.prototype.toString, Number(text), parseFloat.

extension LogicMachine {
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
