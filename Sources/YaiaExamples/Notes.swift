import YaiaKit

/// After login: the user's items, loaded from the `store` service. Selecting
/// one pushes example/detail, whose saved result comes back as `itemSaved`.
public struct HomeState: SceneState {
    public static let name = "example/home"
    /// Where items live in the store: keys "item/<id>", values {"title": ...}.
    public static let prefix = "item/"

    public struct Item: Equatable, Sendable {
        public var key: String
        public var title: String
        public var json: JSON { ["key": .string(key), "title": .string(title)] }
    }

    public var user: JSON = .null
    public var items: [Item] = []
    public var isLoading = false
    public var error: String?

    public enum Action: SceneAction, Equatable {
        case load
        case loaded([Item])
        case loadFailed(message: String)
        case select(key: String)
        case itemSaved(Item)
        case showAbout
        case logout

        public init(_ action: YaiaKit.Action) throws(YaiaError) {
            switch action.type {
            case "load": self = .load
            case "loaded":
                guard case .array(let list) = try action.member("items", of: try action.objectPayload()) else {
                    throw YaiaError(.badPayload, "loaded takes {\"items\": [...]}", at: "/payload/items")
                }
                var items: [Item] = []
                for (i, entry) in list.enumerated() {
                    guard case .string(let key)? = entry["key"], case .string(let title)? = entry["value"]?["title"] else {
                        throw YaiaError(.badPayload, "each item is {\"key\", \"value\": {\"title\"}}", at: "/payload/items/\(i)")
                    }
                    items.append(Item(key: key, title: title))
                }
                self = .loaded(items)
            case "loadFailed": self = .loadFailed(message: try failureMessage(action, default: "Loading failed"))
            case "select": self = .select(key: try action.stringPayload())
            case "itemSaved": self = .itemSaved(try HomeState.item(action))
            case "showAbout": self = .showAbout
            case "logout": self = .logout
            default: throw action.unknown
            }
        }
    }

    static func item(_ action: YaiaKit.Action) throws(YaiaError) -> Item {
        let o = try action.objectPayload()
        guard case .string(let key) = try action.member("key", of: o), case .string(let title) = try action.member("title", of: o) else {
            throw YaiaError(.badPayload, "\(action.type) takes {\"key\": string, \"title\": string}", at: "/payload")
        }
        return Item(key: key, title: title)
    }

    public init() {}

    public init(args: JSON) throws(YaiaError) {
        guard case .object(let o) = args else { throw YaiaError(.badArgs, "example/home takes an object of arguments") }
        user = o["user"] ?? .null
    }

    public init(json: JSON) throws(YaiaError) {
        guard case .object(let o) = json, case .array(let list)? = o["items"] else {
            throw YaiaError(.badState, "a home state is an object with \"items\"")
        }
        user = o["user"] ?? .null
        items = []
        for entry in list {
            guard case .string(let key)? = entry["key"], case .string(let title)? = entry["title"] else {
                throw YaiaError(.badState, "a home item is {\"key\", \"title\"}")
            }
            items.append(Item(key: key, title: title))
        }
        isLoading = try o.bool("isLoading")
        error = try o.optionalString("error")
    }

    public var json: JSON {
        ["user": user, "items": .array(items.map(\.json)), "isLoading": .bool(isLoading), "error": JSON(error)]
    }

    public var viewModel: JSON {
        ["user": user, "items": .array(items.map(\.json)), "isLoading": .bool(isLoading), "error": JSON(error)]
    }

    public mutating func reduce(_ action: Action) -> [Command] {
        switch action {
        case .load:
            isLoading = true
            error = nil
            return [.effect(Effect(service: "store", op: "list", args: ["prefix": .string(HomeState.prefix)],
                                   then: "loaded", catch: "loadFailed", options: .init(id: "load", policy: .latest, restore: .reissue)))]
        case .loaded(let list):
            isLoading = false
            items = list
            return []
        case .loadFailed(let message):
            isLoading = false
            error = message
            return []
        case .select(let key):
            guard let item = items.first(where: { $0.key == key }) else {
                error = "No item \(key)"
                return []
            }
            return [.route(.push(DetailState.name, args: item.json, onResult: "itemSaved"))]
        case .itemSaved(let item):
            if let i = items.firstIndex(where: { $0.key == item.key }) { items[i] = item } else { items.append(item) }
            return []
        case .showAbout:
            return [.route(.present(AboutState.name))]
        case .logout:
            return [.route(.popToRoot)]
        }
    }
}

/// Edits one item; saving writes it to the store, then pops with the item as
/// the result for the scene below.
public struct DetailState: SceneState {
    public static let name = "example/detail"

    public var key: String
    public var title: String
    public var isSaving = false
    public var error: String?

    public enum Action: SceneAction, Equatable {
        case titleChanged(String)
        case save
        case saved
        case saveFailed(message: String)
        case cancel

        public init(_ action: YaiaKit.Action) throws(YaiaError) {
            switch action.type {
            case "titleChanged": self = .titleChanged(try action.stringPayload())
            case "save": self = .save
            case "saved": self = .saved
            case "saveFailed": self = .saveFailed(message: try failureMessage(action, default: "Saving failed"))
            case "cancel": self = .cancel
            default: throw action.unknown
            }
        }
    }

    public init(args: JSON) throws(YaiaError) {
        guard case .object(let o) = args, case .string(let key)? = o["key"] else {
            throw YaiaError(.badArgs, "example/detail takes {\"key\": string, \"title\": string}")
        }
        self.key = key
        self.title = try o.optionalString("title", code: .badArgs) ?? ""
    }

    public init(json: JSON) throws(YaiaError) {
        guard case .object(let o) = json else { throw YaiaError(.badState, "a detail state is an object") }
        key = try o.string("key")
        title = try o.string("title")
        isSaving = try o.bool("isSaving")
        error = try o.optionalString("error")
    }

    public var json: JSON { ["key": .string(key), "title": .string(title), "isSaving": .bool(isSaving), "error": JSON(error)] }

    public var viewModel: JSON {
        ["title": .string(title), "canSave": .bool(!title.isEmpty && !isSaving), "isSaving": .bool(isSaving), "error": JSON(error)]
    }

    public mutating func reduce(_ action: Action) -> [Command] {
        switch action {
        case .titleChanged(let t):
            title = t
            return []
        case .save:
            guard !title.isEmpty, !isSaving else { return [] }
            isSaving = true
            error = nil
            return [.effect(Effect(service: "store", op: "put", args: ["key": .string(key), "value": ["title": .string(title)]],
                                   then: "saved", catch: "saveFailed", options: .init(id: "save", policy: .queue)))]
        case .saved:
            isSaving = false
            return [.route(.pop(result: ["key": .string(key), "title": .string(title)]))]
        case .saveFailed(let message):
            isSaving = false
            error = message
            return []
        case .cancel:
            return [.route(.pop())]
        }
    }
}

/// A presented, static scene.
public struct AboutState: SceneState {
    public static let name = "example/about"

    public enum Action: SceneAction, Equatable {
        case close
        public init(_ action: YaiaKit.Action) throws(YaiaError) {
            guard action.type == "close" else { throw action.unknown }
            self = .close
        }
    }

    public init() {}
    public init(args: JSON) throws(YaiaError) {}
    public init(json: JSON) throws(YaiaError) {}
    public var json: JSON { [:] }
    public var viewModel: JSON { ["title": "Yaia", "text": "Application logic written as values."] }

    public mutating func reduce(_ action: Action) -> [Command] { [.route(.dismiss())] }
}
