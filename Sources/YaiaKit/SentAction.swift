/// An action as a reduction receives it: a value, or the text a caller sent.
/// A scene that reads the action's text itself (a pack's) is handed the text
/// as it came; any other reader builds the value from it (`action()`), so a
/// send to a pack builds no tree of its payload.
public enum SentAction {
    case value(Action)
    case text(ActionText)

    /// The action as a value: built from the text when it came as text.
    public func action() throws(YaiaError) -> Action {
        switch self {
        case .value(let action): action
        case .text(let text): try text.action()
        }
    }

    /// The action's text as the caller sent it, when it came as text.
    public var text: UnsafeBufferPointer<UInt8>? {
        switch self {
        case .value: nil
        case .text(let text): text.bytes
        }
    }
}

/// An action's text, read once and checked: valid JSON within the depth it
/// was read with, an object with a string "type" and a boolean "error" if
/// any, its members checked as strictly as a parse would (the same errors)
/// but not built. Valid only while the caller's text is.
public struct ActionText {
    public let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let spans: ActionSpans
    let error: Bool

    /// Reads `bytes` with the errors of `Action(parsing:)`.
    package init(parsing bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = JSONParser.defaultMaxDepth) throws(YaiaError) {
        var spans = ActionSpans()
        guard let error = try readAction(bytes, maxDepth: maxDepth, into: &spans) else {
            // No object: the general reader names the problem (it cannot succeed).
            _ = try Action(json: try JSONParser.parse(bytes, maxDepth: maxDepth))
            throw YaiaError(.notAnObject, "an action must be an object")
        }
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.spans = spans
        self.error = error
    }

    /// The action as a value: its members built from their checked text.
    public func action() throws(YaiaError) -> Action {
        func value(_ span: Range<Int>?) throws(YaiaError) -> JSON? {
            guard let span else { return nil }
            return try JSONParser.parse(UnsafeBufferPointer(rebasing: bytes[span]), maxDepth: maxDepth)
        }
        guard case .string(let type)? = try value(spans.type) else { throw YaiaError(.internal, "an action was read without its type") }
        return Action(type, payload: try value(spans.payload), error: error, meta: try value(spans.meta))
    }
}
