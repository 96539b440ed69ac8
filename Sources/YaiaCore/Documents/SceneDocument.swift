import YaiaKit

/// One thing wrong with a scene document: a stable code, a message for
/// people and where it lies in the document (a JSON Pointer).
public struct DocumentProblem: Sendable, Equatable, CustomStringConvertible {
    /// A problem's stable code (docs/scene-documents.md lists them).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let badVersion = Code(rawValue: "bad_version")
        public static let missingMember = Code(rawValue: "missing_member")
        public static let unknownMember = Code(rawValue: "unknown_member")
        public static let wrongType = Code(rawValue: "wrong_type")
        public static let badValue = Code(rawValue: "bad_value")
        public static let unknownAction = Code(rawValue: "unknown_action")
        public static let unknownScene = Code(rawValue: "unknown_scene")
        public static let unknownField = Code(rawValue: "unknown_field")
        public static let badPath = Code(rawValue: "bad_path")
        public static let badDeclaration = Code(rawValue: "bad_declaration")
        public static let unreachableBranch = Code(rawValue: "unreachable_branch")
    }

    public var code: Code
    public var message: String
    public var at: String

    public init(_ code: Code, _ message: String, at: String) {
        self.code = code
        self.message = message
        self.at = at
    }

    /// `{"code", "message", "at"}`.
    public var json: JSON { ["code": .string(code.rawValue), "message": .string(message), "at": .string(at)] }

    public var description: String { "\(code): \(message) (at \(at))" }
}

/// A scene written as JSON data (docs/scene-documents.md), read and checked:
/// every expression parsed, every name resolved. Build one with `init`,
/// which refuses a document with problems; `check` lists them all.
public struct SceneDocument: Sendable {
    /// The format versions this runtime reads.
    public static let versions: [Int64] = [1]

    let storage: Storage

    /// The scene type's name.
    public var name: String { storage.name }
    /// The document as it was given.
    public var json: JSON { storage.source }

    /// Every problem of `json` as a scene document, in document order. With
    /// `catalog` (the names of the scene types there are), a route to any
    /// other scene (but this one) is a problem too.
    public static func check(_ json: JSON, catalog: Set<String>? = nil) -> [DocumentProblem] {
        var reader = DocumentReader(catalog: catalog)
        _ = reader.document(json)
        return reader.problems
    }

    /// Reads a document; one with problems is refused with `bad_document`,
    /// whose `problems` lists them all.
    public init(_ json: JSON, catalog: Set<String>? = nil) throws(YaiaError) {
        var reader = DocumentReader(catalog: catalog)
        let storage = reader.document(json)
        guard let storage, reader.problems.isEmpty else {
            throw SceneDocument.error(reader.problems, name: json["scene"]?.stringValue)
        }
        self.storage = storage
    }

    static func error(_ problems: [DocumentProblem], name: String?) -> YaiaError {
        let subject = name.map { "scene document \"\($0)\"" } ?? "the scene document"
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        let first = problems.first.map { $0.message } ?? ""
        var error = YaiaError(.badDocument, "\(subject) has \(count); the first: \(first)", at: problems.first?.at)
        error.problems = .array(problems.map(\.json))
        return error
    }
}
