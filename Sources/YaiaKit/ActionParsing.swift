// An action read straight from its text: its members taken as they are read,
// built, or only checked and their places kept.

extension Action {
    /// `Action(json: JSONParser.parse(bytes))`, with the same results and
    /// errors, but the action's members are taken as they are read: no
    /// object is built and searched. Every send pays for this parse: kept
    /// for speed (docs/architecture.md, "Paths kept for speed").
    package init(parsing bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = JSONParser.defaultMaxDepth) throws(YaiaError) {
        var values = ActionValues()
        guard let error = try readAction(bytes, maxDepth: maxDepth, into: &values), case .string(let type)? = values.type else {
            try self.init(json: try JSONParser.parse(bytes, maxDepth: maxDepth))
            return
        }
        self.init(type, payload: values.payload, error: error, meta: values.meta)
    }
}

/// What reading an action keeps of its type, payload and meta.
protocol ActionMembers {
    /// Reads the value of `member` at the parser's place.
    mutating func take(_ member: ActionMember, from parser: inout JSONParser) throws(JSONParser.Stop)
    /// Whether the type read is a string.
    func typeIsString(in bytes: UnsafeBufferPointer<UInt8>) -> Bool
}

/// The members built.
struct ActionValues: ActionMembers {
    var type: JSON?, payload: JSON?, meta: JSON?

    mutating func take(_ member: ActionMember, from parser: inout JSONParser) throws(JSONParser.Stop) {
        let value = try parser.parseValue(depth: 1)
        switch member {
        case .type: type = value
        case .payload: payload = value
        default: meta = value
        }
    }

    func typeIsString(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if case .string? = type { return true }
        return false
    }
}

/// The members checked as strictly as a parse would (the same errors) but
/// not built: where their text lies. Plain values, so an action read this
/// way is copied and dropped for nothing.
struct ActionSpans: ActionMembers {
    var type: Range<Int>?, payload: Range<Int>?, meta: Range<Int>?

    mutating func take(_ member: ActionMember, from parser: inout JSONParser) throws(JSONParser.Stop) {
        let start = parser.index
        try parser.skipValue(depth: 1)
        switch member {
        case .type: type = start..<parser.index
        case .payload: payload = start..<parser.index
        default: meta = start..<parser.index
        }
    }

    func typeIsString(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        type.map { bytes[$0.lowerBound] == UInt8(ascii: "\"") } ?? false
    }
}

/// Reads the action object in `bytes`, its type, payload and meta into
/// `members`, with the errors of `Action(json: JSONParser.parse(bytes))`;
/// answers its "error" flag, or nil when the text is no object (that
/// reader then names the problem). Later duplicates win, as in JSONObject.
func readAction<Members: ActionMembers>(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int,
                                        into members: inout Members) throws(YaiaError) -> Bool? {
    try JSONParser.withParser(bytes, maxDepth: maxDepth) { (parser) throws(JSONParser.Stop) -> Bool? in
        parser.skipSpace()
        guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "{") else { return nil }
        var error: JSON?
        parser.index += 1
        parser.skipSpace()
        if parser.index < bytes.count && bytes[parser.index] == UInt8(ascii: "}") {
            parser.index += 1
        } else {
            while true {
                try parser.keyQuote()
                let member: ActionMember
                let open = parser.index
                if let text = parser.plainString() {
                    member = ActionMember(UnsafeBufferPointer(rebasing: bytes[text]))
                } else {
                    var key = try parser.parseStringRest(open: open)
                    member = key.withUTF8 { ActionMember($0) }
                }
                try parser.colon()
                switch member {
                case .other: try parser.skipValue(depth: 1)
                case .error: error = try parser.parseValue(depth: 1)
                case .type, .payload, .meta: try members.take(member, from: &parser)
                }
                guard try parser.moreItems(close: UInt8(ascii: "}")) else { break }
            }
        }
        parser.skipSpace()
        if parser.index < bytes.count {
            throw parser.unexpectedAfterValue()
        }
        guard members.typeIsString(in: bytes) else {
            parser.failure = YaiaError(.missingActionType, "the action has no string \"type\"", at: "/type")
            throw JSONParser.Stop()
        }
        guard let error else { return false }
        guard case .bool(let b) = error else {
            parser.failure = YaiaError(.badPayload, "the action's \"error\" must be a boolean", at: "/error")
            throw JSONParser.Stop()
        }
        return b
    }
}

/// The member of an action a key names, told by the key's UTF-8 bytes:
/// no String is made for the usual plain keys.
enum ActionMember {
    case type, payload, error, meta, other

    init(_ key: UnsafeBufferPointer<UInt8>) {
        func spells(_ word: StaticString) -> Bool {
            guard key.count == word.utf8CodeUnitCount else { return false }
            for i in 0..<key.count where key[i] != word.utf8Start[i] { return false }
            return true
        }
        if spells("type") { self = .type }
        else if spells("payload") { self = .payload }
        else if spells("error") { self = .error }
        else if spells("meta") { self = .meta }
        else { self = .other }
    }
}
