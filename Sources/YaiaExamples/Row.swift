import YaiaKit

/// A row of `example/rows`, a child scene with logic of its own: an inline
/// rename saved by its own `store.put` effect, a pin toggle, and outputs to
/// its list when it was renamed or wants to be opened (docs/composition.md).
public struct RowState: SceneState {
    public static let name = "example/row"

    public var id: Int64
    public var title: String
    /// The title being typed, while renaming.
    public var draft: String?
    public var pinned = false
    public var saving = false
    public var error: String?

    public enum Action: SceneAction, Equatable {
        case rename(String)
        case save
        case saved
        case saveFailed(String)
        case togglePin
        case open
        /// The list gave new args: its title, unless one is being typed.
        case setArgs(title: String)

        public init(_ action: YaiaKit.Action) throws(YaiaError) {
            switch action.type {
            case "rename": self = .rename(try action.stringPayload())
            case "save": self = .save
            case "saved": self = .saved
            case "saveFailed": self = .saveFailed(try failureMessage(action, default: "Saving failed"))
            case "togglePin": self = .togglePin
            case "open": self = .open
            case "setArgs":
                let o = try action.objectPayload()
                guard case .string(let title) = try action.member("title", of: o) else {
                    throw YaiaError(.badPayload, "setArgs needs a string \"title\"", at: "/payload/title")
                }
                self = .setArgs(title: title)
            default: throw action.unknown
            }
        }
    }

    public var viewModel: JSON {
        ["id": .int(id), "title": .string(title), "draft": JSON(draft), "pinned": .bool(pinned), "saving": .bool(saving),
         "error": JSON(error), "canSave": .bool(!(draft ?? "").isEmpty && !saving)]
    }

    public init(args: JSON) throws(YaiaError) {
        guard case .object(let o) = args else { throw YaiaError(.badArgs, "example/row takes {\"id\", \"title\"}") }
        id = try o.integer("id", code: .badArgs)
        title = try o.string("title", code: .badArgs)
    }

    public init(json: JSON) throws(YaiaError) {
        guard case .object(let o) = json else { throw YaiaError(.badState, "a row's state is an object") }
        id = try o.integer("id")
        title = try o.string("title")
        draft = try o.optionalString("draft")
        pinned = try o.bool("pinned")
        saving = try o.bool("saving")
        error = try o.optionalString("error")
    }

    public var json: JSON {
        ["id": .int(id), "title": .string(title), "draft": JSON(draft), "pinned": .bool(pinned), "saving": .bool(saving), "error": JSON(error)]
    }

    public mutating func reduce(_ action: Action) -> [Command] {
        switch action {
        case .rename(let text):
            draft = text
            error = nil
        case .save:
            guard let draft, !draft.isEmpty, !saving else {
                error = "A title cannot be empty"
                return []
            }
            saving = true
            return [.effect(Effect(service: "store", op: "put", args: ["key": .string("row/\(id)"), "value": .string(draft)],
                                   then: "saved", catch: "saveFailed", options: .init(id: "save", policy: .latest)))]
        case .saved:
            title = draft ?? title
            draft = nil
            saving = false
            return [.output(YaiaKit.Action("renamed", payload: ["id": .int(id), "title": .string(title)]))]
        case .saveFailed(let message):
            saving = false
            error = message
        case .togglePin:
            pinned.toggle()
        case .open:
            return [.output(YaiaKit.Action("open", payload: ["id": .int(id)]))]
        case .setArgs(let newTitle):
            if draft == nil { title = newTitle }
        }
        return []
    }
}
