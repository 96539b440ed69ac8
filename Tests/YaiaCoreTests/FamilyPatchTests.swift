import Testing
@testable import YaiaCore
import YaiaExamples
import YaiaKit

/// In patch mode, a scene's own patch (a pack's reduce_patch) is asked only
/// of a scene outside any family: a parent's or a child's view is composed
/// and diffed by the runtime, so a patch asked of it would go unread, and
/// its view model be made twice, once for the patch and once when read.
@Suite struct FamilyPatchTests {
    /// The names of the scenes asked for their own patch, in order.
    final class Asked: @unchecked Sendable {
        var names: [String] = []
    }

    /// A scene that says when it is asked for a patch, and is otherwise the one it wraps.
    struct Asking: LiveScene {
        var inner: SceneValue
        let asked: Asked
        var name: String { inner.name }
        func check(_ action: Action) throws(YaiaError) { try inner.check(action) }
        mutating func reduce(_ action: Action) throws(YaiaError) -> [Command] { try inner.reduce(action) }
        var viewModel: JSON { inner.viewModel }
        var json: JSON { inner.json }
        func patchNextReduction() { asked.names.append(inner.name) }
        var childSlots: [ChildSlot] { inner.childSlots }
        func children() throws(YaiaError) -> [Child] { try inner.children() }
    }

    struct World: RuntimeEnvironment {
        let catalog = SceneCatalog(Examples.childSceneTypes)
        let asked: Asked
        var now: Double { 0 }

        func serves(_ service: String) -> Bool { false }
        func openScene(_ name: String, args: JSON) throws(YaiaError) -> any LiveScene {
            guard let type = catalog[name] else { throw YaiaError(.unknownScene, "no scene type named \"\(name)\"") }
            return Asking(inner: try type.open(args: args), asked: asked)
        }
    }

    func send(_ state: inout RuntimeState, _ scene: Int64, _ action: Action, _ world: World) throws -> JSON {
        var steps: [RuntimeState.Step] = []
        return try state.send(.scene(scene), action, env: world, steps: &steps).json
    }

    @Test func onlyASceneOutsideAFamilyIsAskedForItsOwnPatch() throws {
        let world = World(asked: Asked())
        var state = RuntimeState()
        state.viewMode = .patch
        let rows = try #require(try state.open(try world.openScene("example/rows", args: ["items": []]), env: world)["scene"]?.int64Value)
        let lone = try #require(try state.open(try world.openScene("example/row", args: ["id": 9, "title": "Tea"]), env: world)["scene"]?.int64Value)
        #expect(try send(&state, rows, Action("add", payload: ["id": 7, "title": "Milk"]), world)["viewPatch"] != nil)
        let row = try #require(state.children.child(of: rows, slot: "rows", key: 7))
        #expect(try send(&state, row, Action("rename", payload: "Oat milk"), world)["viewPatch"] != nil)
        #expect(world.asked.names.isEmpty, "neither the parent nor its row")
        #expect(try send(&state, lone, Action("rename", payload: "Green tea"), world)["viewPatch"] != nil)
        #expect(world.asked.names == ["example/row"], "the lone row, once")
    }
}
