/// Canonical, compact JSON text.
///
/// Canonical means: object keys in the order of their UTF-8 bytes (the order
/// `JSONObject` keeps), no white space, integers as plain digits, doubles
/// that hold a whole number below 2^53 as plain digits too, other doubles in
/// the shortest form that reads back to the same value. Strings escape only
/// `"`, `\` and control characters (`\b \f \n \r \t`, others as `\u00XX`);
/// everything else is raw UTF-8. Equal values give equal bytes.
public struct JSONWriter {
    public var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }


    public mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    public mutating func write(_ value: JSON) {
        switch value {
        case .null: raw("null")
        case .bool(let b): b ? raw("true") : raw("false")
        case .int(let i): writeInteger(i)
        case .uint(let u): writeUnsigned(u)
        case .double(let d): writeDouble(d)
        case .string(let s): writeString(s)
        case .array(let a):
            bytes.append(UInt8(ascii: "["))
            var first = true
            for element in a {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let o):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for member in o.members {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                writeString(member.key)
                bytes.append(UInt8(ascii: ":"))
                write(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    public mutating func writeInteger(_ value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            writeUnsigned(value.magnitude)
        } else {
            writeUnsigned(UInt64(value))
        }
    }

    public mutating func writeUnsigned(_ value: UInt64) {
        if value < 10 {
            bytes.append(UInt8(truncatingIfNeeded: value) &+ 48)
            return
        }
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes of scratch
        withUnsafeMutableBytes(of: &digits) { buffer in
            var v = value
            var i = buffer.count
            while v > 0 {
                i -= 1
                buffer[i] = UInt8(truncatingIfNeeded: v % 10) &+ 48
                v /= 10
            }
            bytes.append(contentsOf: buffer[i...])
        }
    }

    public mutating func writeDouble(_ d: Double) {
        guard d.isFinite else { raw("null"); return }
        if d == d.rounded(), abs(d) < 9_007_199_254_740_992 {
            writeInteger(Int64(d))
            return
        }
        // Swift prints the shortest text that reads back to the same double.
        var text = d.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    public mutating func writeString(_ s: String) {
        var s = s
        s.withUTF8 { writeString(utf8: $0) }
    }

    public mutating func writeString(utf8 buffer: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var start = 0
        var i = 0
        let n = buffer.count
        while i < n {
            let c = buffer[i]
            if c >= 0x20 && c != 0x22 && c != 0x5C {
                i += 1
                continue
            }
            if start < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<i])) }
            bytes.append(UInt8(ascii: "\\"))
            switch c {
            case 0x22: bytes.append(UInt8(ascii: "\""))
            case 0x5C: bytes.append(UInt8(ascii: "\\"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "u"), 48, 48, hex[Int(c >> 4)], hex[Int(c & 15)]])
            }
            i += 1
            start = i
        }
        if start < n { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<n])) }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSON {
    /// The canonical JSON text of this value.
    public func serialized() -> String {
        var writer = JSONWriter()
        writer.write(self)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The canonical JSON text of this value, as UTF-8 bytes.
    public func serializedBytes() -> [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }
}
