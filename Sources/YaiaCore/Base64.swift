/// RFC 4648 base64 (standard alphabet, padding optional).
public enum Base64 {
    /// The bytes, or nil for text that is not base64.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        var padding = 0
        for c in text.utf8 {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - 65)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - 71)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c) + 4
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: return nil
            }
            guard padding == 0 else { return nil }
            buffer = buffer << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero padding of a final partial group.
        guard bits < 6, buffer & ((1 << UInt32(bits)) - 1) == 0, padding <= 2 else { return nil }
        return out
    }

    public static func encode(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let n = b0 << 16 | b1 << 8 | b2
            out.append(table[Int(n >> 18 & 63)])
            out.append(table[Int(n >> 12 & 63)])
            out.append(i + 1 < bytes.count ? table[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? table[Int(n & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
