import YaiaKit

/// A note, as the scenes hold it and as the `store` service keeps it: the
/// value under the key "note/<id>".
public struct Note: Codable, Equatable, Sendable, JSONRepresentable {
    /// Where notes live in the store; `store.list` reads them by this prefix.
    public static let prefix = "note/"

    public var id: Int
    public var title: String
    public var body: String

    public init(id: Int, title: String = "", body: String = "") {
        self.id = id
        self.title = title
        self.body = body
    }

    /// The note's key in the store.
    public var key: String { Note.prefix + String(id) }
}

/// Who is logged in, as the `auth` service answers: `{"email": ...}`.
public struct User: Codable, Equatable, Sendable, JSONRepresentable {
    public var email: String

    public init(email: String) { self.email = email }
}

/// What a failed effect says to a person. Services fail with
/// `{"code", "message"}` (either may be missing: the runtime's own time-out
/// is `{"code": "timeout"}`), and a UI shows a sentence, not a code.
func failureText(_ doing: String, code: String?, message: String?) -> String {
    if let message, !message.isEmpty { return "\(doing): \(message)" }
    if code == "timeout" { return "\(doing): the service did not answer in time" }
    return "\(doing)" + (code.map { " (\($0))" } ?? "")
}

extension String {
    /// Without leading and trailing whitespace (no Foundation in a pack).
    var trimmed: String {
        // Printable ASCII at both ends is the common case, and then there is
        // nothing to trim: no need to walk Characters.
        if let a = utf8.first, let z = utf8.last, a > 0x20, a < 0x7F, z > 0x20, z < 0x7F { return self }
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
