extension Command {
    /// Reads a JSON array of commands from text as `Command(json:)` reads
    /// each of its items, without building the tree of the list, the
    /// commands and the effects: only args and routes are parsed into
    /// values. A scene pack's reduction answers with this text on every
    /// action that emits something.
    ///
    /// Nil when the text is not such a list, or anything in it is wrong: the
    /// caller then parses it in full, which names the problem.
    package static func list(from bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = JSONParser.defaultMaxDepth) -> [Command]? {
        try? JSONParser.withParser(bytes, maxDepth: maxDepth) { (parser) throws(JSONParser.Stop) -> [Command] in
            try parser.commandList()
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these are the bytes of `name` (a generic `elementsEqual` costs ten times as much).
    @inline(__always)
    fileprivate func `is`(_ name: StaticString) -> Bool {
        guard count == name.utf8CodeUnitCount, let base = baseAddress else { return false }
        let other = name.utf8Start
        for i in 0..<count where base[i] != other[i] { return false }
        return true
    }
}

/// Any failure is a `Stop` whose message nobody reads: the caller falls back
/// to the full parse, which names the problem.
extension JSONParser {

    private mutating func expect(_ c: UInt8) throws(Stop) {
        skipSpace()
        guard index < bytes.count, bytes[index] == c else { throw Stop() }
        index += 1
    }

    /// A key without escapes, as a byte span, and its ":".
    private mutating func key() throws(Stop) -> UnsafeBufferPointer<UInt8> {
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") { break }
            if c == UInt8(ascii: "\\") || c < 0x20 { throw Stop() }
            index += 1
        }
        guard index < bytes.count else { throw Stop() }
        let span = UnsafeBufferPointer(rebasing: bytes[start..<index])
        index += 1
        try colon()
        return span
    }

    private mutating func value(depth: Int) throws(Stop) -> JSON {
        try parseValue(depth: depth)
    }

    /// A non-empty string value.
    private mutating func name() throws(Stop) -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Stop() }
        let s = try parseString()
        guard !s.isEmpty else { throw Stop() }
        return s
    }

    mutating func commandList() throws(Stop) -> [Command] {
        // The list, a command and an effect are the three levels above args.
        guard maxDepth >= 3 else { throw Stop() }
        try expect(UInt8(ascii: "["))
        var commands: [Command] = []
        skipSpace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
        } else {
            repeat { commands.append(try command()) } while try moreItems(close: UInt8(ascii: "]"))
        }
        skipSpace()
        guard index == bytes.count else { throw Stop() }
        return commands
    }

    private mutating func command() throws(Stop) -> Command {
        try expect(UInt8(ascii: "{"))
        let k = try key()
        let command: Command
        if k.is("effect") {
            command = .effect(try effect())
        } else if k.is("cancel") {
            command = .cancel(try name())
        } else if k.is("route") {
            do { command = .route(try Route(json: try value(depth: 2))) } catch { throw Stop() }
        } else {
            throw Stop()
        }
        // One member only: `Command(json:)` refuses more.
        guard try !moreItems(close: UInt8(ascii: "}")) else { throw Stop() }
        return command
    }

    private enum EffectMember { case op, id, args, then, catchName, service, timeout, policy, restore, other }

    /// Passes the quoted key `key` when the text at `index` is exactly that:
    /// word compares, as `JSONWriter.append` copies.
    @inline(__always)
    private mutating func pass(_ key: StaticString) -> Bool {
        let n = key.utf8CodeUnitCount
        guard n >= 4, index + n <= bytes.count, let base = bytes.baseAddress else { return false }
        let text = UnsafeRawPointer(base + index), literal = UnsafeRawPointer(key.utf8Start)
        let same = n >= 8
            ? text.loadUnaligned(as: UInt64.self) == literal.loadUnaligned(as: UInt64.self)
                && text.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == literal.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            : text.loadUnaligned(as: UInt32.self) == literal.loadUnaligned(as: UInt32.self)
                && text.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self) == literal.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
        guard same else { return false }
        index += n
        return true
    }

    /// The next member's key and its ":". A known key is recognized by its
    /// first letter and one compare, not scanned first; any other is
    /// `.other` (one with an escape stops the reading, for the full parse).
    private mutating func effectMember() throws(Stop) -> EffectMember {
        skipSpace()
        if index + 1 < bytes.count {
            switch bytes[index + 1] {
            case UInt8(ascii: "a"): if pass("\"args\"") { return try colon(after: .args) }
            case UInt8(ascii: "c"): if pass("\"catch\"") { return try colon(after: .catchName) }
            case UInt8(ascii: "i"): if pass("\"id\"") { return try colon(after: .id) }
            case UInt8(ascii: "o"): if pass("\"op\"") { return try colon(after: .op) }
            case UInt8(ascii: "p"): if pass("\"policy\"") { return try colon(after: .policy) }
            case UInt8(ascii: "r"): if pass("\"restore\"") { return try colon(after: .restore) }
            case UInt8(ascii: "s"): if pass("\"service\"") { return try colon(after: .service) }
            case UInt8(ascii: "t"):
                if pass("\"then\"") { return try colon(after: .then) }
                if pass("\"timeout\"") { return try colon(after: .timeout) }
            default: break
            }
        }
        _ = try key()
        return .other
    }

    /// Passes the ":" after a known key: as canonical text has it, at once.
    @inline(__always)
    private mutating func colon(after member: EffectMember) throws(Stop) -> EffectMember {
        if index < bytes.count && bytes[index] == UInt8(ascii: ":") {
            index += 1
            skipSpace()
        } else {
            try colon()
        }
        return member
    }

    private mutating func effect() throws(Stop) -> Effect {
        try expect(UInt8(ascii: "{"))
        var service: String?, op: String?, args = JSON.null, then: String?, catchName: String?, id: String?
        var timeout: Double?, policy = Effect.Policy.concurrent, restore = Effect.RestorePolicy.cancel
        skipSpace()
        guard index < bytes.count, bytes[index] != UInt8(ascii: "}") else { throw Stop() }
        repeat {
            // Later duplicates win, as in JSONObject.
            switch try effectMember() {
            case .op: op = try name()
            case .id: id = try name()
            case .args: args = try value(depth: 3)
            case .then: then = try name()
            case .catchName: catchName = try name()
            case .service: service = try name()
            case .timeout:
                guard let seconds = try value(depth: 3).doubleValue, seconds > 0 else { throw Stop() }
                timeout = seconds
            case .policy:
                guard case .string(let p) = try value(depth: 3), let known = Effect.Policy(rawValue: p) else { throw Stop() }
                policy = known
            case .restore:
                guard case .string(let r) = try value(depth: 3), let known = Effect.RestorePolicy(rawValue: r) else { throw Stop() }
                restore = known
            case .other:
                _ = try value(depth: 3)
            }
        } while try moreItems(close: UInt8(ascii: "}"))
        guard let service, let op else { throw Stop() }
        return Effect(service: service, op: op, args: args, then: then, catch: catchName, id: id, timeout: timeout,
                      policy: policy, restore: restore)
    }
}
