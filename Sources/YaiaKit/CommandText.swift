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

    /// An effect's object, its members read as `Effect(json:)` reads a tree's.
    private mutating func effect() throws(Stop) -> Effect {
        try expect(UInt8(ascii: "{"))
        var reading = EffectReading()
        skipSpace()
        guard index < bytes.count, bytes[index] != UInt8(ascii: "}") else { throw Stop() }
        repeat {
            let k = try key()
            reading.take(k, try value(depth: 3))
        } while try moreItems(close: UInt8(ascii: "}"))
        do { return try reading.effect(at: { "" }) } catch { throw Stop() }
    }
}
