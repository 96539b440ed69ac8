#if canImport(Glibc)
import Glibc
#endif

/// A JSON value (RFC 8259).
///
/// Numbers keep their kind: integer literals that fit `Int64` are `.int`,
/// larger non-negative ones that fit `UInt64` are `.uint`, everything else is
/// `.double` (always finite). Numbers compare by value, so `.int(1) == .double(1)`,
/// except that -0.0 differs from 0 (it keeps its sign through JSON text).
/// Strings compare by their UTF-8 bytes, not by Unicode canonical equivalence,
/// so that equal values always serialize to equal bytes.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case array(JSONArray)
    case object(JSONObject)
}

/// A JSON object. Members are kept sorted by the UTF-8 bytes of their keys,
/// which makes serialization canonical and lookups a binary search.
public struct JSONObject: Sendable {
    public struct Member: Sendable {
        public var key: String
        public var value: JSON

        public init(key: String, value: JSON) {
            self.key = key
            self.value = value
        }
    }

    /// The members, in key order.
    public private(set) var members: [Member]

    public init() { members = [] }

    public init(minimumCapacity: Int) {
        members = []
        members.reserveCapacity(minimumCapacity)
    }

    /// Later duplicates of a key replace earlier ones, as most parsers do.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, JSON) {
        var members: [Member] = []
        members.reserveCapacity(pairs.underestimatedCount)
        for (key, value) in pairs { members.append(Member(key: key, value: value)) }
        self.init(members: consume members)
    }

    /// Keys given in order, the usual case, cost one comparison each and no
    /// copy. Otherwise a stable sort (an insertion sort for small objects)
    /// puts equal keys side by side, in the order given, and the last wins.
    public init(members: [Member]) {
        var m = members
        var i = 1
        while i < m.count && compareKeys(m[i - 1].key, m[i].key) < 0 { i += 1 }
        if i < m.count { Self.sortKeepingLast(&m, sortedPrefix: i) }
        self.members = m
    }

    /// Sorts `m`, whose first `sortedPrefix` keys ascend strictly, by key,
    /// then keeps only the last member of each key.
    static func sortKeepingLast(_ m: inout [Member], sortedPrefix: Int) {
        var equalKeys = false
        if m.count > 32 {
            m = m.enumerated().sorted { x, y in
                let c = compareKeys(x.element.key, y.element.key)
                return c != 0 ? c < 0 : x.offset < y.offset
            }.map(\.element)
            equalKeys = true
        } else {
            m.withUnsafeMutableBufferPointer { b in
                for i in sortedPrefix..<b.count {
                    var j = i
                    // A member stops right after an equal key if there is one,
                    // so equal keys, if any, show here.
                    while j > 0 {
                        let order = compareKeys(b[j - 1].key, b[j].key)
                        if order == 0 { equalKeys = true }
                        if order <= 0 { break }
                        b.swapAt(j - 1, j)
                        j -= 1
                    }
                }
            }
        }
        guard equalKeys else { return }
        var w = 0
        for r in 0..<m.count {
            if w > 0 && compareKeys(m[w - 1].key, m[r].key) == 0 {
                m.swapAt(w - 1, r)
            } else {
                if w != r { m.swapAt(w, r) }
                w += 1
            }
        }
        m.removeLast(m.count - w)
    }

    /// Members whose keys the caller has seen strictly ascending.
    init(orderedMembers: [Member]) {
        self.members = orderedMembers
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }


    public subscript(key: String) -> JSON? {
        get {
            let (index, found) = position(of: key)
            return found ? members[index].value : nil
        }
        set {
            let (index, found) = position(of: key)
            switch (found, newValue) {
            case (true, let value?): members[index].value = value
            case (true, nil): members.remove(at: index)
            case (false, let value?): members.insert(Member(key: key, value: value), at: index)
            case (false, nil): break
            }
        }
    }

    /// Changes the value of `key` in place, `absent` inserted first when
    /// there is none: no copy of the value, no second search.
    package mutating func update<T, E: Error>(_ key: String, absent: JSON, _ body: (inout JSON) throws(E) -> T) throws(E) -> T {
        let (index, found) = position(of: key)
        if !found { members.insert(Member(key: key, value: absent), at: index) }
        return try body(&members[index].value)
    }

    /// Where `key` is, or where it would be inserted.

    func position(of key: String) -> (Int, Bool) {
        var low = 0
        var high = members.count
        // Appending in order is the common case when building objects.
        if let last = members.last {
            let order = compareKeys(last.key, key)
            if order < 0 { return (members.count, false) }
            if order == 0 { return (members.count - 1, true) }
            high -= 1
        }
        while low < high {
            let mid = (low + high) / 2
            let order = compareKeys(members[mid].key, key)
            if order == 0 { return (mid, true) }
            if order < 0 { low = mid + 1 } else { high = mid }
        }
        return (low, false)
    }
}

/// Orders keys by their UTF-8 bytes: -1, 0 or 1.
package func compareKeys(_ a: String, _ b: String) -> Int {
    // Native strings, small or not, have contiguous UTF-8: compare with memcmp.
    // Keys are short: a byte loop beats a call to memcmp.
    let fast = a.utf8.withContiguousStorageIfAvailable { pa in
        b.utf8.withContiguousStorageIfAvailable { pb -> Int in
            let n = Swift.min(pa.count, pb.count)
            if n > 0, let x = pa.baseAddress, let y = pb.baseAddress {
                var i = 0
                while i < n {
                    let c = x[i]
                    let d = y[i]
                    if c != d { return c < d ? -1 : 1 }
                    i += 1
                }
            }
            return pa.count == pb.count ? 0 : (pa.count < pb.count ? -1 : 1)
        }
    }
    if let fast, let result = fast { return result }
    var ia = a.utf8.makeIterator()
    var ib = b.utf8.makeIterator()
    while true {
        switch (ia.next(), ib.next()) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case let (x?, y?): if x != y { return x < y ? -1 : 1 }
        }
    }
}

extension JSONObject: Sequence {
    public func makeIterator() -> some IteratorProtocol<(key: String, value: JSON)> {
        members.lazy.map { (key: $0.key, value: $0.value) }.makeIterator()
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(elements)
    }
}

extension JSONObject: Equatable {
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.members.count == b.members.count else { return false }
        for (x, y) in zip(a.members, b.members) {
            guard compareKeys(x.key, y.key) == 0, x.value == y.value else { return false }
        }
        return true
    }
}

extension JSONObject: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hashBytes(member.key, into: &hasher)
            member.value.hash(into: &hasher)
        }
    }
}

func hashBytes(_ s: String, into hasher: inout Hasher) {
    var s = s
    s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
}

// MARK: - Equality and hashing

extension JSON: Equatable {
    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.string(x), .string(y)): return compareKeys(x, y) == 0
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.uint(x), .uint(y)): return x == y
        // -0.0 is its own value: it prints as "-0.0", 0 as "0".
        case let (.double(x), .double(y)): return x == y && x.sign == y.sign
        case let (.int(x), .double(y)), let (.double(y), .int(x)): return !isNegativeZero(y) && Int64(exactly: y) == x
        case let (.uint(x), .double(y)), let (.double(y), .uint(x)): return !isNegativeZero(y) && UInt64(exactly: y) == x
        case let (.int(x), .uint(y)), let (.uint(y), .int(x)): return x >= 0 && UInt64(x) == y
        default: return false
        }
    }
}

func isNegativeZero(_ d: Double) -> Bool { d == 0 && d.sign == .minus }

extension JSON: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        case .string(let s): hashBytes(s, into: &hasher)
        case .array(let a): hasher.combine(a)
        case .object(let o): hasher.combine(o)
        // Numbers equal by value must hash alike.
        case .int(let i): hasher.combine(i)
        case .uint(let u): if let i = Int64(exactly: u) { hasher.combine(i) } else { hasher.combine(u) }
        case .double(let d):
            if isNegativeZero(d) { hasher.combine(d.bitPattern) }
            else if let i = Int64(exactly: d) { hasher.combine(i) }
            else if let u = UInt64(exactly: d) { hasher.combine(u) }
            else { hasher.combine(d) }
        }
    }
}

// MARK: - Literals

// No ExpressibleByNilLiteral: `nil` must always mean Optional.none, never `.null`.
extension JSON: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(JSONArray(elements)) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(JSONObject(elements)) }
}

// MARK: - Access

extension JSON {
    /// An array of `elements`: what was written `.array(elements)` when
    /// arrays were `[JSON]` still reads the same.
    public static func array(_ elements: [JSON]) -> JSON { .array(JSONArray(elements)) }

    public init(_ value: String) { self = .string(value) }
    public init(_ value: Bool) { self = .bool(value) }
    public init(_ value: Int) { self = .int(Int64(value)) }
    public init(_ value: Int64) { self = .int(value) }

    /// A UInt64 as `.int` when it fits, so values have one representation.
    public init(_ value: UInt64) {
        if let i = Int64(exactly: value) { self = .int(i) } else { self = .uint(value) }
    }

    /// A finite double; NaN and infinities have no JSON form and become `null`.
    public init(_ value: Double) { self = value.isFinite ? .double(value) : .null }

    public init(_ value: String?) { self = value.map(JSON.string) ?? .null }

    public var isNull: Bool { if case .null = self { return true } else { return false } }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var arrayValue: JSONArray? { if case .array(let a) = self { return a } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }

    /// The value as an Int64 if it is a whole number in range (1.0 counts).
    public var int64Value: Int64? {
        switch self {
        case .int(let i): return i
        case .uint(let u): return Int64(exactly: u)
        case .double(let d): return Int64(exactly: d)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        case .double(let d): return d
        default: return nil
        }
    }

    public var isNumber: Bool {
        switch self {
        case .int, .uint, .double: return true
        default: return false
        }
    }

    /// Member of an object; nil for other values or a missing key.
    public subscript(key: String) -> JSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The JSON type's name, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .uint, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

// MARK: - Codable (for interop; the hot paths use JSONParser and JSONWriter)
//
// Encoding an object needs a keyed container, so `encode(to:)` cannot use the
// single-value container for objects; that is why it switches on the case.

extension JSON: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .int(i) }
        else if let u = try? c.decode(UInt64.self) { self = .uint(u) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode(JSONArray.self) { self = .array(a) }
        else if let keyed = try? decoder.container(keyedBy: MemberKey.self) {
            var members: [JSONObject.Member] = []
            for key in keyed.allKeys { members.append(.init(key: key.stringValue, value: try keyed.decode(JSON.self, forKey: key))) }
            self = .object(JSONObject(members: members))
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .uint(let u): try c.encode(u)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o):
            var keyed = encoder.container(keyedBy: MemberKey.self)
            for m in o.members { try keyed.encode(m.value, forKey: MemberKey(stringValue: m.key)) }
        }
    }
}

/// Object member names as coding keys. (Foundation's coders keep objects in
/// dictionaries keyed by String, so names that differ only in Unicode
/// normalization collapse there; JSONParser and JSONWriter keep them apart.)
struct MemberKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

extension JSON: CustomStringConvertible {
    /// The canonical JSON text.
    public var description: String { serialized() }
}
