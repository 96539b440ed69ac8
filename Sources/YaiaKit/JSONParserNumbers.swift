// Numbers: integers kept exact, doubles read exactly where they can be, none outside a double's range.

extension JSONParser {
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

    @inline(__always)
    func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
}
