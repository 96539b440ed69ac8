import Testing
@testable import YaiaCore
import YaiaKit

/// An input's deliveries between parents and children are bounded in
/// number, not only in depth: a parent that answers each output of a row
/// with a message to two rows would otherwise double its work at each level.
@Suite struct DeliveryBudgetTests {
    /// Sends "ping" to both its rows at "start" and at every row's "hit".
    struct FanState: SceneState {
        static let name = "test/fan"
        var hits = 0
        static var childSlots: [ChildSlot] { [ChildSlot("rows", scene: PingState.name, kind: .keyed, outputs: ["hit": "hit"])] }
        var children: [Child] { [Child.keyed("rows", key: 1), Child.keyed("rows", key: 2)] }
        enum Action: SceneAction {
            case start, hit
            init(_ action: YaiaKit.Action) throws(YaiaError) {
                switch action.type {
                case "start": self = .start
                case "hit": self = .hit
                default: throw action.unknown
                }
            }
        }
        init(args: JSON) throws(YaiaError) {}
        init(json: JSON) throws(YaiaError) { hits = json["hits"]?.int64Value.map(Int.init) ?? 0 }
        var json: JSON { ["hits": .int(Int64(hits))] }
        var viewModel: JSON { json }
        mutating func reduce(_ action: Action) -> [Command] {
            if case .hit = action { hits += 1 }
            return [1, 2].map { .child(ChildMessage(slot: "rows", key: .int($0), action: YaiaKit.Action("ping"))) }
        }
    }

    /// Says "hit" at every "ping".
    struct PingState: SceneState {
        static let name = "test/ping"
        enum Action: SceneAction {
            case ping
            init(_ action: YaiaKit.Action) throws(YaiaError) {
                guard action.type == "ping" else { throw action.unknown }
                self = .ping
            }
        }
        init(args: JSON) throws(YaiaError) {}
        init(json: JSON) throws(YaiaError) {}
        var json: JSON { [:] }
        var viewModel: JSON { [:] }
        mutating func reduce(_ action: Action) -> [Command] { [.output(YaiaKit.Action("hit"))] }
    }

    struct World: RuntimeEnvironment {
        let catalog = SceneCatalog([SceneType(FanState.self), SceneType(PingState.self)])
        var now: Double { 0 }
        func serves(_ service: String) -> Bool { false }
        func openScene(_ name: String, args: JSON) throws(YaiaError) -> any LiveScene {
            guard let type = catalog[name] else { throw YaiaError(.unknownScene, "no scene type named \"\(name)\"") }
            return try type.open(args: args)
        }
    }

    /// The deliveries of one "start", and the warnings it gave.
    func start(childLimit: Int) throws -> (delivered: Int64, warnings: [String]) {
        var state = RuntimeState(childLimit: childLimit)
        let fan = try #require(try state.open(try World().openScene("test/fan", args: [:]), env: World())["scene"]?.int64Value)
        var steps: [RuntimeState.Step] = []
        _ = try state.send(.scene(fan), Action("start"), env: World(), steps: &steps)
        // Each delivery is one reduction of the fan or a row.
        let delivered = state.scenes.values.map(\.seq).reduce(0, +) - 1
        let warnings = steps.compactMap { step -> String? in if case .warn(let w) = step { return w } else { return nil } }
        return (delivered, warnings)
    }

    @Test func anInputDeliversAtMostTwiceTheChildrenOrScenesLimit() throws {
        let bounded = try start(childLimit: 10)
        #expect(bounded.delivered == 20)
        #expect(bounded.warnings.contains { $0.contains("20 actions delivered for one input; ping dropped") })
        // Under the default limit the depth bound stops the same chain first, far past 20.
        let deep = try start(childLimit: 10_000)
        #expect(deep.delivered > 200)
        #expect(!deep.warnings.contains { $0.contains("for one input") })
    }
}
