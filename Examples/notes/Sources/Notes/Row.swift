import YaiaKit

/// One note of notes/list, a child scene: its line in the list, renamed in
/// place (saved by its own `store.put`) and deleted after a confirmation
/// (its own `store.delete`). It tells the list with outputs: `open` (the
/// list pushes the editor), `renamed` (the note as saved), `deleted` (its id).
/// What the list does not need to know, the draft being typed and the
/// write in flight, stays here (docs/composition.md).
public struct RowState: SceneState, Codable {
    public static let name = "notes/row"

    public var note: Note
    /// The title being typed, while renaming.
    public var draft: String?
    /// A delete waits for a second yes.
    public var confirming = false
    public var busy: EditorState.Busy?
    public var error: String?

    public init(note: Note) { self.note = note }

    /// Open arguments: the note, `{"id", "title", "body"}`.
    public init(args: JSON) throws(YaiaError) {
        self.init(note: try args.decode(Note.self, code: .badArgs))
    }

    public enum Action: SceneAction, Equatable, Decodable {
        case open
        case startRename
        case draftChanged(String)
        case cancelRename
        case commitRename
        /// `store.put`'s result (its payload is not needed).
        case saved
        case saveFailed(code: String?, message: String?)
        case askDelete
        case cancelDelete
        case confirmDelete
        /// `store.delete`'s result.
        case deleted
        case deleteFailed(code: String?, message: String?)
        /// The list's note changed (the editor saved it): the row's args,
        /// sent again by the runtime. A title being typed stays.
        case noteChanged(Note)
    }

    public struct ViewModel: JSONRepresentable, Encodable, Equatable, Sendable {
        public var id: Int
        public var title: String
        /// The body's first line, shortened.
        public var preview: String
        /// The title being typed, or nil when not renaming.
        public var draft: String?
        public var titleError: String?
        public var confirming: Bool
        public var isSaving: Bool
        public var isDeleting: Bool
        public var error: String?
    }

    /// Why the draft cannot be saved, or nil: the editor's rules.
    var draftProblem: String? {
        guard let draft else { return nil }
        let title = draft.trimmed
        if title.isEmpty { return "A title is required" }
        if title.count > EditorState.maxTitleLength {
            return "The title is too long (\(title.count) characters; at most \(EditorState.maxTitleLength))"
        }
        return nil
    }

    public var viewModel: ViewModel {
        ViewModel(id: note.id, title: note.title, preview: ListState.preview(note.body), draft: draft, titleError: draftProblem,
                  confirming: confirming, isSaving: busy == .saving, isDeleting: busy == .deleting, error: error)
    }

    public mutating func reduce(_ action: Action) -> [Command] {
        // While a write is in flight the row is frozen: what the list hears
        // must be what was written.
        switch action {
        case .open, .startRename, .draftChanged, .cancelRename, .commitRename, .askDelete, .confirmDelete:
            if busy != nil { return [] }
        case .saved, .saveFailed, .deleted, .deleteFailed, .cancelDelete, .noteChanged:
            break
        }
        switch action {
        case .open:
            guard draft == nil else { return [] }
            return [.output(YaiaKit.Action("open", payload: .int(Int64(note.id))))]
        case .startRename:
            draft = note.title
            confirming = false
            error = nil
        case .draftChanged(let text):
            guard draft != nil else { return [] }
            draft = text
            error = nil
        case .cancelRename:
            draft = nil
            error = nil
        case .commitRename:
            guard let text = draft else { return [] }
            if let draftProblem {
                error = draftProblem
                return []
            }
            let title = text.trimmed
            guard title != note.title else {
                // The same title: nothing to write.
                draft = nil
                error = nil
                return []
            }
            draft = title
            busy = .saving
            error = nil
            let renamed = Note(id: note.id, title: title, body: note.body)
            return [.effect(Effect(service: "store", op: "put", args: ["key": .string(note.key), "value": renamed.json],
                                   then: "saved", catch: "saveFailed"))]
        case .saved:
            note.title = draft ?? note.title
            draft = nil
            busy = nil
            return [.output(YaiaKit.Action("renamed", payload: note.json))]
        case .saveFailed(let code, let message):
            busy = nil
            error = failureText("Could not rename the note", code: code, message: message)
        case .askDelete:
            confirming = true
            draft = nil
            error = nil
        case .cancelDelete:
            confirming = false
        case .confirmDelete:
            guard confirming else { return [] }
            confirming = false
            busy = .deleting
            error = nil
            return [.effect(Effect(service: "store", op: "delete", args: ["key": .string(note.key)], then: "deleted", catch: "deleteFailed"))]
        case .deleted:
            busy = nil
            return [.output(YaiaKit.Action("deleted", payload: .int(Int64(note.id))))]
        case .deleteFailed(let code, let message):
            busy = nil
            error = failureText("Could not delete the note", code: code, message: message)
        case .noteChanged(let changed):
            note = changed
        }
        return []
    }
}
