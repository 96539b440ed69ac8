import YaiaKit

/// Elm's "load data" example: a list fetched through the `feed` service.
public struct FeedState: SceneState {
    public static let name = "example/feed"

    public var items: [JSON] = []
    public var isLoading = false
    public var error: String?

    public enum Action: SceneAction, Equatable {
        case load
        case loaded([JSON])
        case failed(message: String)

        public init(_ action: YaiaKit.Action) throws(YaiaError) {
            switch action.type {
            case "load": self = .load
            case "loaded":
                let items = try action.member("items", of: try action.objectPayload())
                guard case .array(let list) = items else {
                    throw YaiaError(.badPayload, "loaded takes {\"items\": [...]}, not \(items.kindName) items", at: "/payload/items")
                }
                self = .loaded(list.elements)
            case "failed": self = .failed(message: try failureMessage(action, default: "Loading failed"))
            default: throw action.unknown
            }
        }
    }

    public struct ViewModel: JSONRepresentable, Equatable, Sendable {
        public var isLoading: Bool
        public var items: [JSON]
        public var error: String?

        public var json: JSON { ["error": JSON(error), "isLoading": .bool(isLoading), "items": .array(items)] }
    }

    public init() {}

    public init(args: JSON) throws(YaiaError) {
        guard case .object = args else {
            throw YaiaError(.badArgs, "example/feed takes an object of arguments, not \(args.kindName)")
        }
    }

    public init(json: JSON) throws(YaiaError) {
        guard case .object(let o) = json, case .array(let items)? = o["items"] else {
            throw YaiaError(.badState, "a feed state is an object with \"items\"")
        }
        self.items = items.elements
        isLoading = try o.bool("isLoading")
        error = try o.optionalString("error")
    }

    public var json: JSON { ["items": .array(items), "isLoading": .bool(isLoading), "error": JSON(error)] }

    public var viewModel: ViewModel { ViewModel(isLoading: isLoading, items: items, error: error) }

    public mutating func reduce(_ action: Action) -> [Command] {
        switch action {
        case .load:
            guard !isLoading else { return [] }
            isLoading = true
            error = nil
            return [.effect(Effect(service: "feed", op: "fetch", args: [:], then: "loaded", catch: "failed", options: .init(restore: .reissue)))]
        case .loaded(let list):
            isLoading = false
            items = list
            return []
        case .failed(let message):
            isLoading = false
            error = message
            return []
        }
    }
}

/// The example scene types, for a runtime's catalog.
public enum Examples {
    public static let sceneTypes: [SceneType] = [
        SceneType(LoginState.self), SceneType(FeedState.self), SceneType(SearchState.self), SceneType(JobsState.self),
        SceneType(HomeState.self), SceneType(DetailState.self), SceneType(AboutState.self), SceneType(TodoState.self),
    ]
}
