// Codable is all a scene needs: a `Codable` State, an `Encodable` ViewModel
// and a `Decodable` Action enum get their JSON forms from the defaults here.
// A type that writes its own `json`, `init(json:)` or `init(_ action:)` keeps
// it: the defaults only fill what is not written. The ViewModel still lists
// `JSONRepresentable` among its conformances (SceneState asks for it); its
// `json` then comes from here.
//
// A scene still writes `init(args:)`, since what arguments mean is its own
// choice; with Codable that is typically one line:
//
//     init(args: JSON) throws(YaiaError) { self = try args.decode(Self.self, code: .badArgs) }
//
// or the decoding of an `Args` struct whose members the state picks from.

extension JSONRepresentable where Self: Encodable {
    /// The value encoded with `JSONValueEncoder`.
    ///
    /// `json` cannot throw, and synthesized conformances never fail; should a
    /// hand-written `encode(to:)` throw, the result is `null` rather than a
    /// crash of the host (the failure shows up as a null view model or state).
    public var json: JSON { (try? JSONValueEncoder().encode(self)) ?? .null }
}

extension SceneState where Self: Decodable {
    /// Reads a state back from its `json` form with `JSONValueDecoder`;
    /// errors are `bad_state`, located inside the state.
    public init(json: JSON) throws(YaiaError) {
        self = try JSONValueDecoder().decode(Self.self, from: json, code: .badState)
    }
}

extension SceneAction where Self: Decodable {
    /// Reads a typed action from a Flux Standard Action, mapping it onto the
    /// form Swift synthesizes for enums (`{"case": {"_0": value}}`):
    ///
    /// - `type` names the case; an unknown one is `unknown_action` at `/type`.
    /// - A single unlabeled value is the whole payload:
    ///   `case emailChanged(String)` reads `{"type": "emailChanged", "payload": "a@b.c"}`.
    /// - Labeled values are members of an object payload:
    ///   `case loginSucceeded(user: JSON)` reads `{"payload": {"user": ...}}`.
    ///   Optional members may be missing, and a missing or null payload then
    ///   counts as an empty object.
    /// - Several unlabeled values are the elements of an array payload:
    ///   `case moved(Int, Int)` reads `{"payload": [3, 4]}`.
    /// - A case without values ignores the payload, whatever it is: the
    ///   payload of an outcome (`then` / `catch` actions) is the service's
    ///   to choose, and a case that has no use for it should not refuse it.
    /// - A raw-value enum (`enum Action: String, Decodable`) takes the type
    ///   as its raw value and ignores the payload likewise.
    ///
    /// A payload of the wrong shape is `bad_payload`, with `at` inside the
    /// action (`/payload`, `/payload/user`, ...). The action's `error` and
    /// `meta` are not read: a catch action is told apart by its type.
    ///
    /// Cost: most of it is Swift's own for a synthesized enum (boxed
    /// containers, generic metadata, an `allKeys` array converted twice),
    /// several times that of a hand-written switch on `action.type`. An
    /// Action type can write its own `init(_:)` (a switch on `action.type`)
    /// and keep the rest Codable.
    public init(_ action: Action) throws(YaiaError) {
        self = try FluxDecoder.decode(Self.self, from: action)
    }
}

/// Decodes a typed action from a Flux Standard Action. It is the top decoder;
/// the payload is read through `DecodingNode`s rooted at `/payload`.
final class FluxDecoder: Decoder {
    let type: String
    let payload: JSON?
    /// Whether the action's type named a case: errors before that mean an
    /// unknown action, errors after it a bad payload. (Unchecked: a runtime
    /// exclusivity check per access would cost more than the flag is worth,
    /// and the accesses never overlap.)
    @exclusivity(unchecked) var matched = false

    init(_ action: Action) {
        type = action.type
        payload = action.payload
    }

    static func decode<T: Decodable>(_: T.Type, from action: Action) throws(YaiaError) -> T {
        let decoder = FluxDecoder(action)
        do {
            return try T(from: decoder)
        } catch {
            throw decoder.failure(error)
        }
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    var unknown: YaiaError { YaiaError(.unknownAction, "unknown action type \"\(type)\"", at: "/type") }

    /// The payload as a root decoding node.
    func payloadNode() -> DecodingNode {
        matched = true
        return DecodingNode(value: payload ?? .null, parent: nil, key: .none,
                            context: DecodingContext(code: .badPayload, base: "/payload", rootSubject: "the payload",
                                                     rootMissing: payload == nil))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(FluxCases<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw unknown }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { FluxRawValue(decoder: self) }

    func failure(_ error: any Error) -> YaiaError {
        if let e = error as? YaiaError { return e }
        // Synthesized enum decoding throws a DecodingError when no case
        // matched (no keys); a raw-value enum when no raw value matched.
        if !matched { return unknown }
        return payloadNode().failure(error)
    }
}

/// The top container: one key, the action's type, whose value is the payload.
struct FluxCases<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: FluxDecoder

    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        guard let key = Key(stringValue: decoder.type) else { return [] }
        return [key]
    }

    func contains(_ key: Key) -> Bool { key.stringValue == decoder.type }

    func payload(_ key: Key) throws(YaiaError) -> DecodingNode {
        guard key.stringValue == decoder.type else { throw decoder.unknown }
        return decoder.payloadNode()
    }

    func decodeNil(forKey key: Key) throws -> Bool { try payload(key).value.isNull }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let node = try payload(key)
        return try node.decode(type, node.value, .none)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(FluxValues<NestedKey>(node: try payload(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try payload(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { throw decoder.unknown }

    func superDecoder(forKey key: Key) throws -> any Decoder { try payload(key) }
}

/// A case's values: `_0` alone is the whole payload, `_0`, `_1`, ... the
/// elements of an array payload, labels the members of an object payload.
struct FluxValues<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let node: DecodingNode

    var codingPath: [any CodingKey] { [] }

    /// Where a key's value is: the payload itself, an element or a member.
    enum Place {
        case whole
        case element(Int)
        case member(String)
    }

    @inline(__always)
    func place(_ key: Key) -> Place {
        let name = key.stringValue
        guard let i = unlabeledIndex(name) else { return .member(name) }
        // `_0` is the whole payload unless the case has several unlabeled
        // values and the payload is an array; the key type is only asked
        // about `_1` then (a single value, the common case, skips that).
        if i == 0, case .array = node.value, FluxValues.hasSeveralValues() { return .element(0) }
        return i == 0 ? .whole : .element(i)
    }

    /// Kept out of line: asking for a `Key?` makes a generic function fetch
    /// the metadata of `Optional<Key>` on entry, whichever branch it takes.
    @inline(never)
    static func hasSeveralValues() -> Bool { Key(stringValue: "_1") != nil }

    /// The value for `key` and where it is, or nil when it is absent (a
    /// missing or null payload has no members).
    func lookup(_ key: Key) throws(YaiaError) -> (JSON, PathKey)? {
        switch place(key) {
        case .whole:
            return (node.value, .none)
        case .element(let i):
            guard case .array(let a) = node.value else { throw node.mismatch(.none, "an array", node.value) }
            return i < a.count ? (a[i], .index(i)) : nil
        case .member(let name):
            switch node.value {
            case .object(let o): return o[name].map { ($0, .name(name)) }
            case .null: return nil
            default: throw node.mismatch(.none, "an object", node.value)
            }
        }
    }

    func required(_ key: Key) throws(YaiaError) -> (JSON, PathKey) {
        guard let found = try lookup(key) else {
            if case .element(let i) = place(key) {
                throw YaiaError(.badPayload, "needs element \(i)", at: node.pointer(.index(i)))
            }
            throw node.missing(key.stringValue)
        }
        return found
    }

    var allKeys: [Key] {
        switch node.value {
        case .object(let o): return o.members.compactMap { Key(stringValue: $0.key) }
        default: return []
        }
    }

    func contains(_ key: Key) -> Bool { ((try? lookup(key)) ?? nil) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { try lookup(key)?.0.isNull ?? true }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { let (v, k) = try required(key); return try node.bool(v, k) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { let (v, k) = try required(key); return try node.string(v, k) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { let (v, k) = try required(key); return try node.double(v, k) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { let (v, k) = try required(key); return try node.float(v, k) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { let (v, k) = try required(key); return try node.integer(type, v, k) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { let (v, k) = try required(key); return try node.integer(type, v, k) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { let (v, k) = try required(key); return try node.integer(type, v, k) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { let (v, k) = try required(key); return try node.integer(type, v, k) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { let (v, k) = try required(key); return try node.integer(type, v, k) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { let (v, k) = try required(key); return try node.integer(type, v, k) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { let (v, k) = try required(key); return try node.integer(type, v, k) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { let (v, k) = try required(key); return try node.integer(type, v, k) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { let (v, k) = try required(key); return try node.integer(type, v, k) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { let (v, k) = try required(key); return try node.integer(type, v, k) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { let (v, k) = try required(key); return try node.decode(type, v, k) }

    func present(_ key: Key) throws(YaiaError) -> (JSON, PathKey)? {
        guard let found = try lookup(key), !found.0.isNull else { return nil }
        return found
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { guard let (v, k) = try present(key) else { return nil }; return try node.bool(v, k) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { guard let (v, k) = try present(key) else { return nil }; return try node.string(v, k) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { guard let (v, k) = try present(key) else { return nil }; return try node.double(v, k) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { guard let (v, k) = try present(key) else { return nil }; return try node.float(v, k) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { guard let (v, k) = try present(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { guard let (v, k) = try present(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { guard let (v, k) = try present(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { guard let (v, k) = try present(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { guard let (v, k) = try present(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { guard let (v, k) = try present(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { guard let (v, k) = try present(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { guard let (v, k) = try present(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { guard let (v, k) = try present(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { guard let (v, k) = try present(key) else { return nil }; return try node.integer(type, v, k) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let (v, k) = try present(key) else { return nil }
        return try node.decode(type, v, k)
    }

    func child(_ key: Key) throws(YaiaError) -> DecodingNode {
        let (v, k) = try required(key)
        if case .none = k { return node }
        return DecodingNode(value: v, parent: node, key: k, context: node.context)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try child(key).unkeyedContainer() }

    func superDecoder() throws -> any Decoder { node }

    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

/// N for the key `_N` Swift gives the Nth unlabeled value of a case; a byte
/// scan, since this runs for every action (`Int(Substring)` costs far more).
@inline(__always)
func unlabeledIndex(_ name: String) -> Int? {
    var bytes = name.utf8.makeIterator()
    guard bytes.next() == UInt8(ascii: "_"), let first = bytes.next(), first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
    var n = Int(first - UInt8(ascii: "0"))
    while let b = bytes.next() {
        guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9"), n < 100_000 else { return nil }
        n = n * 10 + Int(b - UInt8(ascii: "0"))
    }
    return n
}

/// A raw-value enum's view of an action: the type is the raw value.
struct FluxRawValue: SingleValueDecodingContainer {
    let decoder: FluxDecoder

    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }
    func decode(_ type: String.Type) throws -> String { decoder.type }
    // An action type is a string: a raw value of any other type matches no action.
    func decode(_ type: Bool.Type) throws -> Bool { throw decoder.unknown }
    func decode(_ type: Double.Type) throws -> Double { throw decoder.unknown }
    func decode(_ type: Float.Type) throws -> Float { throw decoder.unknown }
    func decode(_ type: Int.Type) throws -> Int { throw decoder.unknown }
    func decode(_ type: Int8.Type) throws -> Int8 { throw decoder.unknown }
    func decode(_ type: Int16.Type) throws -> Int16 { throw decoder.unknown }
    func decode(_ type: Int32.Type) throws -> Int32 { throw decoder.unknown }
    func decode(_ type: Int64.Type) throws -> Int64 { throw decoder.unknown }
    func decode(_ type: UInt.Type) throws -> UInt { throw decoder.unknown }
    func decode(_ type: UInt8.Type) throws -> UInt8 { throw decoder.unknown }
    func decode(_ type: UInt16.Type) throws -> UInt16 { throw decoder.unknown }
    func decode(_ type: UInt32.Type) throws -> UInt32 { throw decoder.unknown }
    func decode(_ type: UInt64.Type) throws -> UInt64 { throw decoder.unknown }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self, let s = decoder.type as? T { return s }
        throw decoder.unknown
    }
}
