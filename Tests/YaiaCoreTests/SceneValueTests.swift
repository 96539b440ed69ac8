import Testing
import YaiaCore
import YaiaExamples
import YaiaKit

/// A minimal scene type of the tests' own, to check the catalog with other names.
struct NamedScene<Name: SceneName>: SceneState {
    static var name: String { Name.value }

    enum Action: SceneAction {
        case nothing
        init(_ action: YaiaKit.Action) throws(YaiaError) { throw action.unknown }
    }

    struct ViewModel: JSONRepresentable, Equatable, Sendable {
        var json: JSON { [:] }
    }

    init(args: JSON) throws(YaiaError) {}
    init(json: JSON) throws(YaiaError) {}
    var json: JSON { [:] }
    var viewModel: ViewModel { ViewModel() }
    mutating func reduce(_ action: Action) -> [Command] { [] }
}

protocol SceneName: Sendable { static var value: String { get } }
enum NameZ: SceneName { static let value = "Z" }
enum NameLowerA: SceneName { static let value = "a" }
enum NameEAcute: SceneName { static let value = "é/scene" }
enum NameAstral: SceneName { static let value = "😀" }
enum NameBMP: SceneName { static let value = "\u{FFFF}" }
enum NameLogin: SceneName { static let value = "example/login" }

func action(_ text: String) throws -> Action { try Action(json: json(text)) }

@Suite("SceneValue: a scene driven with JSON")
struct SceneValueTests {
    @Test("opens through its type and reduces JSON actions like the typed reducer")
    func reduceJSON() throws {
        let type = SceneType(LoginState.self)
        #expect(type.name == "example/login")
        var scene = try type.open(args: ["email": "a@b.c"])
        #expect(scene.name == "example/login")
        #expect(scene == SceneValue(login(email: "a@b.c")))

        #expect(try scene.reduce(action("{\"type\":\"passwordChanged\",\"payload\":\"hunter2\"}")) == [])
        #expect(try scene.reduce(action("{\"type\":\"submit\"}")) == [authEffect])
        #expect(scene == SceneValue(login(email: "a@b.c", password: "hunter2", isSubmitting: true)))
        #expect(scene.json == login(email: "a@b.c", password: "hunter2", isSubmitting: true).json)
        #expect(scene.viewModel == ["canSubmit": false, "email": "a@b.c", "error": .null, "isSubmitting": true])

        let commands = try scene.reduce(action("{\"type\":\"loginSucceeded\",\"payload\":{\"user\":{\"id\":1}},\"meta\":5}"))
        #expect(commands == [.route(.push("example/home", args: ["user": ["id": 1]]))])
        #expect(scene == SceneValue(login(email: "a@b.c", password: "hunter2", user: ["id": 1])))
    }

    @Test("opening with the default arguments")
    func defaultArgs() throws {
        #expect(try SceneType(FeedState.self).open() == SceneValue(FeedState()))
        #expect(try SceneType(LoginState.self).open() == SceneValue(LoginState()))
    }

    @Test("opening with bad arguments gives bad_args")
    func badArgs() {
        let error = yaiaError { () throws(YaiaError) in try SceneType(LoginState.self).open(args: ["email": 1]) }
        #expect(error?.code == .badArgs)
        #expect(error?.at == "/email")
    }

    static let refusedActions: [(String, ErrorCode, String)] = [
        ("{\"type\":\"nope\"}", .unknownAction, "/type"),
        ("{\"type\":\"emailChanged\",\"payload\":5}", .badPayload, "/payload"),
        ("{\"type\":\"emailChanged\"}", .badPayload, "/payload"),
        ("{\"type\":\"loginSucceeded\",\"payload\":{}}", .badPayload, "/payload/user"),
    ]

    @Test("a refused action is an error and leaves the state unchanged", arguments: refusedActions)
    func refused(text: String, code: ErrorCode, at: String) throws {
        let before = SceneValue(login(email: "a@b.c", password: "p", isSubmitting: true, error: "e"))
        var scene = before
        let a = try action(text)
        let error = yaiaError { () throws(YaiaError) in try scene.reduce(a) }
        #expect(error?.code == code)
        #expect(error?.at == at)
        #expect(scene == before)
        #expect(scene.json.serialized() == before.json.serialized())
        // check() reports the same error without reducing.
        #expect(yaiaError { () throws(YaiaError) in try scene.check(a) } == error)
    }

    @Test("check() accepts without reducing")
    func checkDoesNotReduce() throws {
        let scene = SceneValue(LoginState())
        try scene.check(action("{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}"))
        #expect(scene == SceneValue(LoginState()))
    }

    @Test("scenes of different types are never equal")
    func equality() {
        #expect(SceneValue(LoginState()) != SceneValue(FeedState()))
        #expect(SceneValue(FeedState()) != SceneValue(LoginState()))
        #expect(SceneValue(FeedState()) == SceneValue(FeedState()))
        #expect(SceneValue(feed(isLoading: true)) != SceneValue(FeedState()))
    }

    @Test("restores a state from its JSON")
    func restore() throws {
        let original = SceneValue(feed(items: [1, 2], error: "x"))
        let restored = try SceneType(FeedState.self).restore(state: original.json)
        #expect(restored == original)
        let error = yaiaError { () throws(YaiaError) in try SceneType(FeedState.self).restore(state: ["items": 1]) }
        #expect(error?.code == .badState)
    }

    @Test("the feed scene through JSON")
    func feedJSON() throws {
        var scene = try SceneType(FeedState.self).open()
        #expect(try scene.reduce(action("{\"type\":\"load\"}")) == [fetchEffect])
        #expect(try scene.reduce(action("{\"type\":\"loaded\",\"payload\":{\"items\":[\"a\"]}}")) == [])
        #expect(scene.viewModel == ["error": .null, "isLoading": false, "items": ["a"]])
    }
}

@Suite("SceneCatalog")
struct SceneCatalogTests {
    @Test("names sorted, lookup by name")
    func lookup() {
        let catalog = SceneCatalog([SceneType(LoginState.self), SceneType(FeedState.self)])
        #expect(catalog.names == ["example/feed", "example/login"])
        #expect(catalog["example/login"]?.name == "example/login")
        #expect(catalog["example/feed"]?.name == "example/feed")
        #expect(catalog["example/home"] == nil)
        #expect(catalog["Example/Login"] == nil)
        #expect(SceneCatalog().names == [])
    }

    @Test("the examples' catalog holds login and feed, one name per type, sorted")
    func examples() throws {
        let catalog = SceneCatalog(Examples.sceneTypes)
        #expect(catalog.names.contains("example/login"))
        #expect(catalog.names.contains("example/feed"))
        #expect(catalog.names.count == Examples.sceneTypes.count)
        #expect(catalog.names == Examples.sceneTypes.map(\.name).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(try catalog["example/login"]?.open() == SceneValue(LoginState()))
        #expect(try catalog["example/feed"]?.open() == SceneValue(FeedState()))
    }

    @Test("names sort by UTF-8 bytes whatever the registration order")
    func sortedByBytes() {
        var catalog = SceneCatalog()
        catalog.register(NamedScene<NameAstral>.self)
        catalog.register(NamedScene<NameEAcute>.self)
        catalog.register(NamedScene<NameBMP>.self)
        catalog.register(NamedScene<NameLowerA>.self)
        catalog.register(NamedScene<NameZ>.self)
        catalog.register(LoginState.self)
        #expect(catalog.names == ["Z", "a", "example/login", "é/scene", "\u{FFFF}", "😀"])
    }

    @Test("a later registration of a name replaces the earlier one")
    func replace() throws {
        var catalog = SceneCatalog([SceneType(LoginState.self), SceneType(FeedState.self)])
        catalog.register(NamedScene<NameLogin>.self)
        #expect(catalog.names == ["example/feed", "example/login"])
        let opened = try #require(catalog["example/login"]).open()
        #expect(opened != SceneValue(LoginState()))
        #expect(opened == SceneValue(try NamedScene<NameLogin>(args: [:])))
        // The initializer keeps the last of duplicate names too.
        let fromList = SceneCatalog([SceneType(NamedScene<NameLogin>.self), SceneType(LoginState.self)])
        #expect(try #require(fromList["example/login"]).open() == SceneValue(LoginState()))
    }
}
