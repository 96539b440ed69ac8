import YaiaKit

/// A todo list, the Swift twin of the scene document
/// Examples/todo-documents/todo.json (the same arguments, actions and view
/// members), written as docs/scenes.md recommends for lists: the items in a
/// KeyedList, their rows and the count left derived from it, so that a
/// change to one item costs one item however long the list.
public struct TodoState: SceneState, Codable {
    public static let name = "example/todo"

    public struct Todo: Identifiable, Codable, Equatable, Sendable {
        public var id: Int64
        public var title: String
        public var done: Bool

        public init(id: Int64, title: String, done: Bool) {
            self.id = id
            self.title = title
            self.done = done
        }

        public var isActive: Bool { !done }
    }

    public enum Filter: String, Codable, Sendable {
        case all, active, done
    }

    public var todos: KeyedList<Todo> = []
    public var nextID: Int64 = 1
    public var filter = Filter.all
    public var error: String?
    /// What the new-item field holds, a keystroke at a time.
    public var draft = ""

    public enum Action: SceneAction, Equatable {
        case add(String)
        case toggle(Int64)
        case remove(Int64)
        case clearDone
        case show(Filter)
        case draft(String)

        public init(_ action: YaiaKit.Action) throws(YaiaError) {
            switch action.type {
            case "add": self = .add(try action.stringPayload())
            case "toggle": self = .toggle(try TodoState.id(action))
            case "remove": self = .remove(try TodoState.id(action))
            case "clearDone": self = .clearDone
            case "show":
                guard let filter = try Filter(rawValue: action.stringPayload()) else {
                    throw YaiaError(.badPayload, "show takes \"all\", \"active\" or \"done\"", at: "/payload")
                }
                self = .show(filter)
            case "draft": self = .draft(try action.stringPayload())
            default: throw action.unknown
            }
        }
    }

    static func id(_ action: YaiaKit.Action) throws(YaiaError) -> Int64 {
        guard let id = action.payload?.int64Value else {
            throw YaiaError(.badPayload, "\(action.type) takes an item's id, an integer", at: "/payload")
        }
        return id
    }

    /// One item as the view lists it: made from its item alone, so kept
    /// from one view model to the next until the item changes.
    public struct Row: KeyedListRow, Encodable, Equatable, Sendable {
        public var id: Int64
        public var title: String
        public var done: Bool

        public init(_ todo: Todo) {
            id = todo.id
            title = todo.title
            done = todo.done
        }
    }

    public struct ViewModel: JSONRepresentable, Encodable, Equatable, Sendable {
        public var items: ViewRows
        public var filter: Filter
        public var left: Int
        public var total: Int
        public var error: String?
        public var draft: String
    }

    public init() {}

    struct Args: Decodable {
        var todos: KeyedList<Todo>?
    }

    public init(args: JSON) throws(YaiaError) {
        todos = try args.decode(Args.self, code: .badArgs).todos ?? []
        nextID = (todos.map(\.id).max() ?? 0) + 1
    }

    public var viewModel: ViewModel {
        let items: ViewRows
        switch filter {
        case .all: items = todos.rows(Row.self)
        case .active: items = todos.rows(Row.self, where: \.isActive)
        case .done: items = todos.rows(Row.self, where: \.done)
        }
        return ViewModel(items: items, filter: filter, left: todos.count(matching: \.isActive), total: todos.count, error: error, draft: draft)
    }

    public mutating func reduce(_ action: Action) -> [Command] {
        switch action {
        case .add(let text):
            let title = TodoState.trimmed(text)
            guard !title.isEmpty else {
                error = "A todo needs a title"
                return []
            }
            todos.append(Todo(id: nextID, title: title, done: false))
            nextID += 1
            error = nil
        case .toggle(let id):
            todos.modify(id: id) { $0.done.toggle() }
        case .remove(let id):
            todos.remove(id: id)
        case .clearDone:
            todos.removeAll(where: \.done)
        case .show(let filter):
            self.filter = filter
        case .draft(let text):
            draft = text
        }
        return []
    }

    /// `text` without white space at either end, as the document's `trim`.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let isSpace = { (s: Unicode.Scalar) in s.properties.isWhitespace || s == "\u{FEFF}" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[first...last])
    }
}
