/// A value with a JSON form: its text and its tree.
public protocol JSONForm {
    func write(into w: inout JSONWriter)
    var json: JSON { get }
}

/// A JSON object described once, member by member in key order: its text
/// (`write`) and its tree (`json`) both follow from `members`, so a key is
/// spelled in one place and the two forms cannot drift apart.
public protocol JSONMembers: JSONForm {
    func members<Sink: JSONMemberSink>(into sink: inout Sink)
}

/// What a description's members go to: text or a tree. Keys come in key
/// order (the order of their UTF-8 bytes), so neither form sorts.
public protocol JSONMemberSink {
    mutating func member(_ key: StaticString, _ value: JSON)
    mutating func member(_ key: StaticString, int: Int64)
    mutating func member(_ key: StaticString, string: String)
    mutating func member<Value: JSONForm>(_ key: StaticString, form value: Value)
    mutating func member<Items: Collection>(_ key: StaticString, array items: Items) where Items.Element: JSONForm
}

extension JSONMembers {
    @inlinable
    public func write(into w: inout JSONWriter) { writeObject(into: &w) }

    /// `write`, answering the offset at which the last member begins (for
    /// `JSONWriter.digestOfObject(from:)`).
    @inlinable @discardableResult
    public func writeObject(into w: inout JSONWriter) -> Int {
        w.raw("{")
        let last = withUnsafeMutablePointer(to: &w) { w in
            var sink = JSONMemberText(w)
            members(into: &sink)
            return sink.lastMember
        }
        w.raw("}")
        return last
    }

    public var json: JSON {
        var sink = JSONMemberTree()
        members(into: &sink)
        return .object(JSONObject(members: sink.members))
    }
}

/// Writes members as text into a writer the caller holds. Its members are
/// inlined into a description's `members`, specialized for this sink: a key
/// is then a constant, and whether a comma goes before it is known.
public struct JSONMemberText: JSONMemberSink {
    @usableFromInline let w: UnsafeMutablePointer<JSONWriter>
    @usableFromInline var first = true
    /// Where the last member written begins.
    public var lastMember = 0

    @inlinable
    public init(_ w: UnsafeMutablePointer<JSONWriter>) { self.w = w }

    /// `"key":`, after a comma unless it is the first member: one
    /// capacity check, the bytes stored in place.
    @inlinable @inline(__always)
    mutating func key(_ key: StaticString) {
        let n = key.utf8CodeUnitCount
        let comma = first ? 0 : 1
        first = false
        lastMember = w.pointee.byteCount + comma
        w.pointee.appendDirect(maxCount: n + 4) { p in
            if comma == 1 { p[0] = UInt8(ascii: ",") }
            p[comma] = UInt8(ascii: "\"")
            let from = key.utf8Start
            for i in 0..<n { p[comma + 1 + i] = from[i] }
            p[comma + 1 + n] = UInt8(ascii: "\"")
            p[comma + 2 + n] = UInt8(ascii: ":")
            return comma + n + 3
        }
    }

    @inlinable @inline(__always)
    public mutating func member(_ key: StaticString, _ value: JSON) {
        self.key(key)
        w.pointee.write(value)
    }

    @inlinable @inline(__always)
    public mutating func member(_ key: StaticString, int: Int64) {
        self.key(key)
        w.pointee.writeInteger(int)
    }

    @inlinable @inline(__always)
    public mutating func member(_ key: StaticString, string: String) {
        self.key(key)
        w.pointee.writeString(string)
    }

    @inlinable @inline(__always)
    public mutating func member<Value: JSONForm>(_ key: StaticString, form value: Value) {
        self.key(key)
        value.write(into: &w.pointee)
    }

    @inlinable @inline(__always)
    public mutating func member<Items: Collection>(_ key: StaticString, array items: Items) where Items.Element: JSONForm {
        self.key(key)
        // Most updates' lists are empty: no iterator for them.
        if items.isEmpty { return w.pointee.raw("[]") }
        w.pointee.raw("[")
        var rest = false
        for item in items {
            if rest { w.pointee.raw(",") }
            rest = true
            item.write(into: &w.pointee)
        }
        w.pointee.raw("]")
    }
}

/// Collects members as a tree's.
public struct JSONMemberTree: JSONMemberSink {
    public var members: [JSONObject.Member] = []

    public init() {}

    public mutating func member(_ key: StaticString, _ value: JSON) {
        members.append(.init(key: key.description, value: value))
    }

    public mutating func member(_ key: StaticString, int: Int64) { member(key, .int(int)) }

    public mutating func member(_ key: StaticString, string: String) { member(key, .string(string)) }

    public mutating func member<Value: JSONForm>(_ key: StaticString, form value: Value) { member(key, value.json) }

    public mutating func member<Items: Collection>(_ key: StaticString, array items: Items) where Items.Element: JSONForm {
        member(key, .array(items.map(\.json)))
    }
}

extension JSON: JSONForm {
    public func write(into w: inout JSONWriter) { w.write(self) }
}
