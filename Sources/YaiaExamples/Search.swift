import YaiaKit

/// Type-ahead search (TCA's canonical cancellation example): each query
/// replaces the one in flight (policy `latest`), gives up after a deadline,
/// and clearing the query cancels the search.
public struct SearchState: SceneState {
    public static let name = "example/search"
    /// Seconds a search may take.
    public static let timeout = 5.0

    public var query = ""
    public var results: [JSON] = []
    public var isSearching = false
    public var error: String?

    public enum Action: SceneAction, Equatable {
        case queryChanged(String)
        case results(query: String, items: [JSON])
        case searchFailed(message: String)

        public init(_ action: YaiaKit.Action) throws(YaiaError) {
            switch action.type {
            case "queryChanged": self = .queryChanged(try action.stringPayload())
            case "results":
                let o = try action.objectPayload()
                guard case .string(let q) = try action.member("query", of: o) else {
                    throw YaiaError(.badPayload, "results needs a string \"query\"", at: "/payload/query")
                }
                guard case .array(let items) = try action.member("items", of: o) else {
                    throw YaiaError(.badPayload, "results needs an \"items\" array", at: "/payload/items")
                }
                self = .results(query: q, items: items.elements)
            case "searchFailed": self = .searchFailed(message: try failureMessage(action, default: "Search failed"))
            default: throw action.unknown
            }
        }
    }

    public struct ViewModel: JSONRepresentable, Equatable, Sendable {
        public var query: String
        public var results: [JSON]
        public var isSearching: Bool
        public var error: String?

        public var json: JSON {
            ["error": JSON(error), "isSearching": .bool(isSearching), "query": .string(query), "results": .array(results)]
        }
    }

    public init() {}

    public init(args: JSON) throws(YaiaError) {
        guard case .object = args else { throw YaiaError(.badArgs, "example/search takes an object of arguments") }
    }

    public init(json: JSON) throws(YaiaError) {
        guard case .object(let o) = json, case .array(let results)? = o["results"] else {
            throw YaiaError(.badState, "a search state is an object with \"results\"")
        }
        query = try o.string("query")
        self.results = results.elements
        isSearching = try o.bool("isSearching")
        error = try o.optionalString("error")
    }

    public var json: JSON {
        ["query": .string(query), "results": .array(results), "isSearching": .bool(isSearching), "error": JSON(error)]
    }

    public var viewModel: ViewModel { ViewModel(query: query, results: results, isSearching: isSearching, error: error) }

    public mutating func reduce(_ action: Action) -> [Command] {
        switch action {
        case .queryChanged(let q):
            query = q
            error = nil
            guard !q.isEmpty else {
                results = []
                isSearching = false
                return [.cancel("search")]
            }
            isSearching = true
            return [.effect(Effect(service: "search", op: "query", args: ["query": .string(q)], then: "results",
                                   catch: "searchFailed", options: .init(id: "search", timeout: SearchState.timeout, policy: .latest)))]
        case .results(let q, let items):
            // A late answer to an older query is not this query's answer.
            guard q == query else { return [] }
            isSearching = false
            results = items
            return []
        case .searchFailed(let message):
            isSearching = false
            error = message
            return []
        }
    }
}

/// A generic effect driver for scripts and tests: `run` emits the effect its
/// payload describes, `cancel` cancels by key, and every outcome is logged.
public struct JobsState: SceneState {
    public static let name = "example/jobs"

    /// Outcomes in arrival order: {"ok": true, "result": ...} or {"ok": false, "error": ...}.
    public var log: [JSON] = []

    public enum Action: SceneAction, Equatable {
        case run(Effect)
        case cancel(String)
        case done(JSON)
        case failed(JSON)

        public init(_ action: YaiaKit.Action) throws(YaiaError) {
            switch action.type {
            case "run":
                var effect: Effect
                do throws(YaiaError) {
                    effect = try Effect(json: action.payload ?? .null)
                } catch {
                    throw YaiaError(.badPayload, error.message, at: "/payload" + (error.at ?? ""))
                }
                effect.then = "done"
                effect.catch = "failed"
                self = .run(effect)
            case "cancel": self = .cancel(try action.stringPayload())
            case "done": self = .done(action.payload ?? .null)
            case "failed": self = .failed(action.payload ?? .null)
            default: throw action.unknown
            }
        }
    }

    public init() {}

    public init(args: JSON) throws(YaiaError) {
        guard case .object = args else { throw YaiaError(.badArgs, "example/jobs takes an object of arguments") }
    }

    public init(json: JSON) throws(YaiaError) {
        guard case .object(let o) = json, case .array(let log)? = o["log"] else {
            throw YaiaError(.badState, "a jobs state is an object with \"log\"")
        }
        self.log = log.elements
    }

    public var json: JSON { ["log": .array(log)] }
    public var viewModel: JSON { ["log": .array(log)] }

    public mutating func reduce(_ action: Action) -> [Command] {
        switch action {
        case .run(let effect): return [.effect(effect)]
        case .cancel(let key): return [.cancel(key)]
        case .done(let result):
            log.append(["ok": true, "result": result])
            return []
        case .failed(let error):
            log.append(["ok": false, "error": error])
            return []
        }
    }
}
