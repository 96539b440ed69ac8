import CYaiaScene
import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
@testable import YaiaRuntime

/// Both sides of the scene-pack ABI in one process: YaiaKit's descriptor for
/// the example scenes, checked and driven by the runtime's loader, as a pack
/// loaded from a file would be.
@Suite struct ScenePackTests {
    /// ScenePack.export builds its descriptor once per process.
    static let toggle = #"{"yaia":1,"scene":"test/toggle","state":{"on":false},"actions":{"flip":{"set":{"on":{"!":{"var":"state.on"}}}}}}"#
    static let examples: LoadedScenePack? = {
        let answer = ScenePack.export(name: "examples", version: "9.9", Examples.sceneTypes, documents: [toggle],
                                      host: UnsafeRawPointer(hostTable))
        return try? checkPack(answer?.assumingMemoryBound(to: yaia_scene_pack.self), path: "(in process)", shownAs: "examples")
    }()

    func runtime() throws -> Runtime {
        var catalog = Catalog()
        try catalog.add(try #require(Self.examples))
        return Runtime(catalog: catalog, workers: 1)
    }

    @Test func theDescriptorListsEveryExampleScene() throws {
        let pack = try #require(Self.examples)
        #expect(pack.info.name == "examples")
        #expect(pack.info.version == "9.9")
        #expect(pack.info.scenes == Examples.sceneTypes.map(\.name))
    }

    @Test func theDescriptorShipsItsDocuments() throws {
        let pack = try #require(Self.examples)
        #expect(pack.documents == [Self.toggle])
        #expect(!pack.info.scenes.contains("test/toggle"), "documents are read by the host, not listed as pack scene types")
    }

    @Test func aHostTableTooSmallGetsNoDescriptor() {
        var small = yaia_scene_host()
        small.size = 8
        #expect(ScenePack.export(name: "x", [LoginState.self], host: &small) == nil)
        #expect(ScenePack.export(name: "x", [LoginState.self], host: nil) == nil)
    }

    @Test func aPackSceneBehavesLikeTheSwiftValue() throws {
        let rt = try runtime()
        defer { rt.shutDown() }
        var value = SceneValue(LoginState())
        let opened = try rt.open("example/login")
        #expect(opened["viewModel"] == value.viewModel)
        let id = try #require(opened["scene"]?.int64Value)
        for action in [Action("emailChanged", payload: "a@b.c"), Action("passwordChanged", payload: "pw"), Action("submit")] {
            let commands = try value.reduce(action)
            let update = try rt.send(scene: id, action: action)
            #expect(update["viewModel"] == value.viewModel)
            #expect(update["effects"]?.arrayValue?.count == commands.count)
        }
        let state = try rt.state(scene: id)
        #expect(state["state"] == value.json)
    }

    @Test func errorsKeepTheirCodesAndPointers() throws {
        let rt = try runtime()
        defer { rt.shutDown() }
        let id = try #require(try rt.open("example/login")["scene"]?.int64Value)
        let unknown = yaiaError { () throws(YaiaError) in _ = try rt.send(scene: id, action: Action("nope")) }
        #expect(unknown?.code == .unknownAction)
        #expect(unknown?.at == "/type")
        let bad = yaiaError { () throws(YaiaError) in _ = try rt.send(scene: id, action: Action("emailChanged", payload: 3)) }
        #expect(bad?.code == .badPayload)
        #expect(bad?.at == "/payload")
        let args = yaiaError { () throws(YaiaError) in _ = try rt.open("example/login", args: ["email": 1]) }
        #expect(args?.code == .badArgs)
        let state = yaiaError { () throws(YaiaError) in _ = try rt.open("example/login", state: ["email": 1]) }
        #expect(state?.code == .badState)
        // The refusals changed nothing.
        #expect(try rt.state(scene: id)["seq"] == 0)
    }

    @Test func aStateRoundTripsThroughThePack() throws {
        let rt = try runtime()
        defer { rt.shutDown() }
        let id = try #require(try rt.open("example/login", args: ["email": "x@y.z"])["scene"]?.int64Value)
        _ = try rt.send(scene: id, action: Action("passwordChanged", payload: "pw"))
        let saved = try #require(try rt.state(scene: id)["state"])
        let copy = try #require(try rt.open("example/login", state: saved)["scene"]?.int64Value)
        #expect(try rt.state(scene: copy)["state"] == saved)
        #expect(try rt.state(scene: copy)["viewModel"] == rt.state(scene: id)["viewModel"])
    }

    @Test func aNameTakenTwiceIsRefusedWhole() throws {
        var catalog = Catalog()
        let pack = try #require(Self.examples)
        try catalog.add(pack)
        let error = yaiaError { () throws(YaiaError) in try catalog.add(pack) }
        #expect(error?.code == .duplicateScene)
        #expect(catalog.packs.count == 1)
    }

    /// yaia_scene.h and docs/packs.md: a short struct is a malformed descriptor.
    @Test(arguments: [0, 8])
    func aDescriptorTooShortIsInvalid(size: Int) {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<yaia_scene_pack>.size, alignment: 16)
        defer { raw.deallocate() }
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<yaia_scene_pack>.size)
        raw.storeBytes(of: size, as: Int.self)
        let error = yaiaError { () throws(YaiaError) in
            try checkPack(raw.assumingMemoryBound(to: yaia_scene_pack.self), path: "(in process)", shownAs: "short")
        }
        #expect(error?.code == .scenePackInvalid)
        #expect(error?.message.contains("descriptor of \(size) bytes") == true)
    }

    @Test func commandsReadBackFromTheirJSON() throws {
        let commands: [Command] = [
            .effect(Effect(service: "auth", op: "login", args: ["a": 1], then: "ok", catch: "no", options: .init(id: "k", timeout: 2, policy: .latest, restore: .reissue))),
            .route(.push("x/y", args: ["a": 1], onResult: "back")), .route(.pop(result: 3)), .cancel("k"),
        ]
        for command in commands { #expect(try Command(json: command.json) == command) }
        let error = yaiaError { () throws(YaiaError) in _ = try Command(json: ["jump": 1]) }
        #expect(error?.code == .badRequest)
    }
}
