import YaiaKit

/// Edits one note. Saving writes it to the store and pops with
/// `{"saved": NOTE}`; deleting removes it and pops with `{"deleted": ID}`;
/// the list below receives either as `editorClosed`.
public struct EditorState: SceneState, Codable {
    public static let name = "notes/editor"
    public static let maxTitleLength = 200

    public var note: Note
    /// The note as it was opened (or last saved): what "changed" compares with.
    public var original: Note
    /// Not in the store yet: deleting it just closes the editor.
    public var isNew: Bool
    public var busy: Busy?
    /// Why the last save or delete did not happen.
    public var error: String?

    public enum Busy: String, Codable, Sendable {
        case saving, deleting
    }

    public init(note: Note, isNew: Bool) {
        self.note = note
        self.original = note
        self.isNew = isNew
    }

    /// Open arguments: `{"note": NOTE, "isNew": BOOL}` (isNew defaults to false).
    public struct Args: Codable, Sendable, JSONRepresentable {
        public var note: Note
        public var isNew: Bool?
    }

    public init(args: JSON) throws(YaiaError) {
        let args = try args.decode(Args.self, code: .badArgs)
        self.init(note: args.note, isNew: args.isNew ?? false)
    }

    public enum Action: SceneAction, Equatable, Decodable {
        case titleChanged(String)
        case bodyChanged(String)
        case save
        /// `store.put`'s result (its payload is not needed).
        case saved
        case saveFailed(code: String?, message: String?)
        case delete
        /// `store.delete`'s result.
        case deleted
        case deleteFailed(code: String?, message: String?)
        case cancel
    }

    public struct ViewModel: JSONRepresentable, Encodable, Equatable, Sendable {
        /// "New note" or "Edit note".
        public var heading: String
        public var title: String
        public var body: String
        public var titleError: String?
        /// "12/200": the title's length against its limit.
        public var titleCounter: String
        public var hasChanges: Bool
        public var canSave: Bool
        public var canDelete: Bool
        public var isSaving: Bool
        public var isDeleting: Bool
        public var error: String?
    }

    /// Why the title cannot be saved, or nil.
    var titleProblem: String? {
        let title = note.title.trimmed
        if title.isEmpty { return "A title is required" }
        if title.count > EditorState.maxTitleLength {
            return "The title is too long (\(title.count) characters; at most \(EditorState.maxTitleLength))"
        }
        return nil
    }

    public var viewModel: ViewModel {
        ViewModel(heading: isNew ? "New note" : "Edit note", title: note.title, body: note.body,
                  titleError: titleProblem, titleCounter: "\(note.title.trimmed.count)/\(EditorState.maxTitleLength)",
                  hasChanges: note != original, canSave: busy == nil && titleProblem == nil,
                  canDelete: busy == nil, isSaving: busy == .saving, isDeleting: busy == .deleting, error: error)
    }

    public mutating func reduce(_ action: Action) -> [Command] {
        // While a write is in flight the form is frozen: the note in the
        // result must be the note that was written.
        switch action {
        case .titleChanged, .bodyChanged, .save, .delete, .cancel:
            if busy != nil { return [] }
        case .saved, .saveFailed, .deleted, .deleteFailed:
            break
        }
        switch action {
        // An edit answers the last error: it no longer describes the note.
        case .titleChanged(let value):
            note.title = value
            error = nil
            return []
        case .bodyChanged(let value):
            note.body = value
            error = nil
            return []
        case .save:
            if let titleProblem {
                error = titleProblem
                return []
            }
            note.title = note.title.trimmed
            busy = .saving
            error = nil
            return [.effect(Effect(service: "store", op: "put", args: ["key": .string(note.key), "value": note.json],
                                   then: "saved", catch: "saveFailed"))]
        case .saved:
            busy = nil
            isNew = false
            original = note
            return [.route(.pop(result: ["saved": note.json]))]
        case .saveFailed(let code, let message):
            busy = nil
            error = failureText("Could not save the note", code: code, message: message)
            return []
        case .delete:
            if isNew { return [.route(.pop())] }
            busy = .deleting
            error = nil
            return [.effect(Effect(service: "store", op: "delete", args: ["key": .string(note.key)],
                                   then: "deleted", catch: "deleteFailed"))]
        case .deleted:
            busy = nil
            return [.route(.pop(result: ["deleted": .int(Int64(note.id))]))]
        case .deleteFailed(let code, let message):
            busy = nil
            error = failureText("Could not delete the note", code: code, message: message)
            return []
        case .cancel:
            return [.route(.pop())]
        }
    }
}
