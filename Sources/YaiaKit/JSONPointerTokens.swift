// Reading RFC 6901 JSON Pointers back into their reference tokens.

extension JSONPointer {
    /// The reference tokens of `pointer`, unescaped (`~1` is `/`, `~0` is
    /// `~`); nil when it is not a pointer: not empty and not starting with
    /// `/`, or with a `~` not followed by `0` or `1`.
    package static func tokens(_ pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        var utf8 = Array(pointer.utf8)
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        utf8.removeFirst()
        var tokens: [String] = []
        var token: [UInt8] = []
        var i = 0
        while i < utf8.count {
            let c = utf8[i]
            if c == UInt8(ascii: "/") {
                tokens.append(String(decoding: token, as: UTF8.self))
                token.removeAll(keepingCapacity: true)
            } else if c == UInt8(ascii: "~") {
                guard i + 1 < utf8.count else { return nil }
                switch utf8[i + 1] {
                case UInt8(ascii: "0"): token.append(UInt8(ascii: "~"))
                case UInt8(ascii: "1"): token.append(UInt8(ascii: "/"))
                default: return nil
                }
                i += 1
            } else {
                token.append(c)
            }
            i += 1
        }
        tokens.append(String(decoding: token, as: UTF8.self))
        return tokens
    }

    /// The array index a token names: decimal digits without a leading zero
    /// (RFC 6901), so `01`, `1e0`, `+1` and `-1` name none.
    package static func index(_ token: String) -> Int? {
        let utf8 = token.utf8
        guard let first = utf8.first, utf8.count <= 18 else { return nil }
        if first == UInt8(ascii: "0") { return utf8.count == 1 ? 0 : nil }
        var n = 0
        for c in utf8 {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            n = n * 10 + Int(c - UInt8(ascii: "0"))
        }
        return n
    }
}
