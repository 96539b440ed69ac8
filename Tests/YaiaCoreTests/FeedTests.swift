import Testing
import YaiaCore
import YaiaExamples
import YaiaKit

func feed(items: [JSON] = [], isLoading: Bool = false, error: String? = nil) -> FeedState {
    var s = FeedState()
    s.items = items
    s.isLoading = isLoading
    s.error = error
    return s
}

/// The feed's fetch is re-issued when a snapshot is restored.
let fetchEffect = Command.effect(Effect(service: "feed", op: "fetch", args: [:], then: "loaded", catch: "failed", options: .init(restore: .reissue)))

@Suite("example/feed: reducer")
struct FeedReducerTests {
    @Test("initial state, its JSON and view model")
    func initial() {
        let s = FeedState()
        #expect(FeedState.name == "example/feed")
        #expect(s == feed())
        #expect(s.json.serialized() == "{\"error\":null,\"isLoading\":false,\"items\":[]}")
        #expect(s.viewModel.json.serialized() == "{\"error\":null,\"isLoading\":false,\"items\":[]}")
    }

    @Test("load: loading, one fetch effect")
    func load() {
        Given(FeedState())
            .when(.load)
            .then(state: feed(isLoading: true), commands: [fetchEffect])
            .then(viewModel: ["error": .null, "isLoading": true, "items": []])
    }

    @Test("load clears a previous error and keeps the items")
    func loadClearsError() {
        Given(feed(items: [1], error: "offline"))
            .when(.load)
            .then(state: feed(items: [1], isLoading: true), commands: [fetchEffect])
    }

    @Test("load while loading does nothing")
    func loadTwice() {
        Given(feed(isLoading: true)).when(.load).then(state: feed(isLoading: true), commands: [])
        Given(FeedState()).when(.load, .load).then(state: feed(isLoading: true), commands: [fetchEffect])
    }

    @Test("loaded: items replaced, idle")
    func loaded() {
        let items: [JSON] = [["id": 1, "title": "a"], ["id": 2, "title": "b"]]
        Given(feed(items: ["old"], isLoading: true))
            .when(.loaded(items))
            .then(state: feed(items: items), commands: [])
            .then(viewModel: ["error": .null, "isLoading": false, "items": .array(items)])
    }

    @Test("failed: idle, error shown, items kept")
    func failed() {
        Given(feed(items: [1], isLoading: true))
            .when(.failed(message: "offline"))
            .then(state: feed(items: [1], error: "offline"), commands: [])
            .then(viewModel: ["error": "offline", "isLoading": false, "items": [1]])
    }
}

@Suite("example/feed: actions from JSON")
struct FeedActionTests {
    static let readable: [(String, FeedState.Action)] = [
        ("{\"type\":\"load\"}", .load),
        ("{\"type\":\"loaded\",\"payload\":{\"items\":[]}}", .loaded([])),
        ("{\"type\":\"loaded\",\"payload\":{\"items\":[1,\"a\",null]}}", .loaded([1, "a", .null])),
        ("{\"type\":\"failed\",\"payload\":{\"message\":\"offline\"},\"error\":true}", .failed(message: "offline")),
        ("{\"type\":\"failed\",\"payload\":\"offline\"}", .failed(message: "offline")),
        ("{\"type\":\"failed\",\"payload\":{}}", .failed(message: "Loading failed")),
        ("{\"type\":\"failed\"}", .failed(message: "Loading failed")),
    ]

    @Test("reads every action", arguments: readable)
    func reads(text: String, expected: FeedState.Action) throws {
        #expect(try typedAction(FeedState.self, text) == expected)
    }

    static let refused: [(String, ErrorCode, String)] = [
        ("{\"type\":\"reload\"}", .unknownAction, "/type"),
        ("{\"type\":\"loaded\"}", .badPayload, "/payload"),
        ("{\"type\":\"loaded\",\"payload\":[1]}", .badPayload, "/payload"),
        ("{\"type\":\"loaded\",\"payload\":{}}", .badPayload, "/payload/items"),
        ("{\"type\":\"loaded\",\"payload\":{\"items\":5}}", .badPayload, "/payload/items"),
        ("{\"type\":\"loaded\",\"payload\":{\"items\":{}}}", .badPayload, "/payload/items"),
        ("{\"type\":\"failed\",\"payload\":42}", .badPayload, "/payload"),
    ]

    @Test("refuses unknown types and wrong payloads, locating the fault", arguments: refused)
    func refuses(text: String, code: ErrorCode, at: String) throws {
        let error = try actionError(FeedState.self, text)
        #expect(error?.code == code)
        #expect(error?.at == at)
    }
}

@Suite("example/feed: open arguments and state JSON")
struct FeedStateJSONTests {
    @Test("opens from an object of arguments")
    func args() throws {
        #expect(try FeedState(args: [:]) == FeedState())
        #expect(try FeedState(args: ["anything": 1]) == FeedState())
    }

    @Test("bad arguments give bad_args", arguments: [JSON.array([]), "x", .null, 3])
    func badArgs(args: JSON) {
        #expect(yaiaError { () throws(YaiaError) in try FeedState(args: args) }?.code == .badArgs)
    }

    static let states: [FeedState] = [
        FeedState(),
        feed(isLoading: true),
        feed(items: [1, ["a": [true]], "é"], error: "offline"),
    ]

    @Test("state JSON round-trips through init(json:)", arguments: states)
    func roundTrip(state: FeedState) throws {
        #expect(try FeedState(json: state.json) == state)
        #expect(try FeedState(json: JSONParser.parse(state.json.serialized())) == state)
    }

    static let badStates: [JSON] = [
        [],
        ["isLoading": false],
        ["items": 1, "isLoading": false],
        ["items": [], "isLoading": 0],
        ["items": [], "isLoading": false, "error": false],
    ]

    @Test("malformed state JSON gives bad_state", arguments: badStates)
    func badState(value: JSON) {
        #expect(yaiaError { () throws(YaiaError) in try FeedState(json: value) }?.code == .badState)
    }
}
