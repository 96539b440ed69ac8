// An action read straight from its text: its members taken as they are read.

extension Action {
    /// `Action(json: JSONParser.parse(bytes))`, with the same results and
    /// errors, but the action's members are taken as they are read: no
    /// object is built and searched. Every send pays for this parse: kept
    /// for speed (docs/architecture.md, "Paths kept for speed").
    package init(parsing bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = JSONParser.defaultMaxDepth) throws(YaiaError) {
        let action = try JSONParser.withParser(bytes, maxDepth: maxDepth) { (parser) throws(JSONParser.Stop) -> Action? in
            parser.skipSpace()
            guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "{") else { return nil }
            var type: JSON?, payload: JSON?, error: JSON?, meta: JSON?
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
                    if case .other = member {
                        try parser.skipValue(depth: 1)
                    } else {
                        let value = try parser.parseValue(depth: 1)
                        // Later duplicates win, as in JSONObject.
                        switch member {
                        case .type: type = value
                        case .payload: payload = value
                        case .error: error = value
                        case .meta: meta = value
                        case .other: break
                        }
                    }
                    guard try parser.moreItems(close: UInt8(ascii: "}")) else { break }
                }
            }
            parser.skipSpace()
            if parser.index < bytes.count {
                throw parser.unexpectedAfterValue()
            }
            guard case .string(let name)? = type else {
                parser.failure = YaiaError(.missingActionType, "the action has no string \"type\"", at: "/type")
                throw JSONParser.Stop()
            }
            var isError = false
            if let error {
                guard case .bool(let b) = error else {
                    parser.failure = YaiaError(.badPayload, "the action's \"error\" must be a boolean", at: "/error")
                    throw JSONParser.Stop()
                }
                isError = b
            }
            return Action(name, payload: payload, error: isError, meta: meta)
        }
        guard let action else {
            try self.init(json: try JSONParser.parse(bytes, maxDepth: maxDepth))
            return
        }
        self = action
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
