// Strings: plain spans taken whole, escapes and surrogate pairs decoded into UTF-8.

extension JSONParser {
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
}
