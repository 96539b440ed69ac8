// Codable over Yaia's own JSON value: no Foundation, no text in between.
//
// A scene pack reads one action and writes one view model per send, so both
// directions are built for that: one final class per nested value, containers
// that are thin structs over it, members placed in key order as they come,
// and the types JSON carries directly (strings, numbers, booleans, JSON
// itself) written and read without a nested encoder or decoder. Where a value
// lies in a path is only worked out when there is an error to report.
//
// What remains is mostly the standard library's own price for Codable: a box
// and generic metadata per container, and for enums an `allKeys` array that
// it converts twice (to `[any CodingKey]` and back). For a synthesized enum
// that floor is most of an action's decoding time.
//
// Here: what both directions share, and the conveniences on JSON; the encoder
// and the decoder are in the files beside this one.

/// Where a nested encoder or decoder sits in its parent: a member, an
/// element, or nowhere (the root, or the same place as its parent).
enum PathKey {
    case none
    case name(String)
    case index(Int)

    var codingKey: (any CodingKey)? {
        switch self {
        case .none: return nil
        case .name(let s): return PathCodingKey(stringValue: s)
        case .index(let i): return PathCodingKey(intValue: i)
        }
    }

    var token: String? {
        switch self {
        case .none: return nil
        case .name(let s): return JSONPointer.token(s)
        case .index(let i): return String(i)
        }
    }
}

/// The coding keys this file makes up for coding paths.
struct PathCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// `base` followed by the tokens of a coding path.
func codingPathPointer(base: String, _ path: [any CodingKey]) -> String {
    var p = base
    for key in path {
        p += "/"
        if let i = key.intValue, key.stringValue == String(i) { p += String(i) } else { p += JSONPointer.token(key.stringValue) }
    }
    return p
}

extension JSON {
    /// This value as a `Decodable` type; see `JSONValueDecoder`. For a
    /// scene's arguments: `try args.decode(Args.self, code: .badArgs)`.
    public func decode<T: Decodable>(_ t: T.Type, code: ErrorCode = .badPayload, at: String = "") throws(YaiaError) -> T {
        try JSONValueDecoder().decode(t, from: self, code: code, at: at)
    }

    /// The JSON form of an `Encodable` value; see `JSONValueEncoder`.
    public init<T: Encodable>(encoding value: T) throws(YaiaError) {
        self = try JSONValueEncoder().encode(value)
    }
}
