import Testing
import YaiaCore
import YaiaExamples
import YaiaKit

/// The runtime as a value: given a state and an input, the answer, the
/// state after and the steps for the shell. No thread, no clock, no IO:
/// time is a number the test sets, services are names it lists.
@Suite struct RuntimeStateTests {
    typealias Step = RuntimeState.Step

    /// The world as a test states it.
    struct World: RuntimeEnvironment {
        var now: Double = 0
        var services: Set<String> = []
        let catalog = SceneCatalog(Examples.sceneTypes)

        func serves(_ service: String) -> Bool { services.contains(service) }
        func openScene(_ name: String, args: JSON) throws(YaiaError) -> any LiveScene {
            guard let type = catalog[name] else { throw YaiaError(.unknownScene, "no scene type named \"\(name)\"") }
            return try type.open(args: args)
        }
    }

    func action(_ type: String, _ payload: JSON? = nil) -> Action { Action(type, payload: payload) }

    func open(_ name: String, in state: inout RuntimeState, world: World = World(), args: JSON = [:]) throws -> Int64 {
        let response = try state.open(try world.openScene(name, args: args))
        return try #require(response["scene"]?.int64Value)
    }

    func send(_ state: inout RuntimeState, _ scene: Int64, _ action: Action, world: World = World()) throws -> (JSON, [Step]) {
        var steps: [Step] = []
        let response = try state.send(.scene(scene), action, env: world, steps: &steps)
        return (response.json, steps)
    }

    /// A login scene with a valid form, ready to submit.
    func readyLogin(in state: inout RuntimeState) throws -> Int64 {
        let login = try open("example/login", in: &state)
        _ = try send(&state, login, action("emailChanged", "a@b.c"))
        _ = try send(&state, login, action("passwordChanged", "pw"))
        return login
    }

    /// A login submitted, its effect running on the "auth" service.
    func submitted(in state: inout RuntimeState) throws -> (Int64, World) {
        let login = try readyLogin(in: &state)
        var world = World()
        world.services = ["auth"]
        _ = try send(&state, login, action("submit"), world: world)
        return (login, world)
    }

    func events(_ steps: [Step]) -> [JSON] {
        steps.compactMap {
            switch $0 {
            case .event(let e): return e
            case .eventText(let text): return try? JSONParser.parse(text.bytes)
            default: return nil
            }
        }
    }

    @Test func aSendAnswersTheUpdateAndLeavesNoSteps() throws {
        var state = RuntimeState()
        let login = try open("example/login", in: &state)
        let (response, steps) = try send(&state, login, action("emailChanged", "a@b.c"))
        #expect(response["seq"] == 1)
        #expect(response["viewModel"]?["email"] == "a@b.c")
        #expect(steps.isEmpty)
        #expect(state.scenes[login]?.seq == 1)
    }

    @Test func aStateIsAValue() throws {
        var state = RuntimeState()
        let login = try open("example/login", in: &state)
        var copy = state
        _ = try send(&copy, login, action("emailChanged", "a@b.c"))
        #expect(copy.scenes[login]?.seq == 1 && copy.scenes[login]?.value.viewModel["email"] == "a@b.c")
        #expect(state.scenes[login]?.seq == 0 && state.scenes[login]?.value.viewModel["email"] == "")
        _ = try send(&state, login, action("emailChanged", "x@y.z"))
        #expect(copy.scenes[login]?.value.viewModel["email"] == "a@b.c")
    }

    @Test func anEffectStartsOnItsServiceOrWaitsForTheHost() throws {
        var state = RuntimeState()
        let login = try readyLogin(in: &state)
        var world = World()
        world.services = ["auth"]
        let (served, steps) = try send(&state, login, action("submit"), world: world)
        #expect(served["effects"]?.arrayValue?.first?["status"] == "running")
        #expect(steps == [.effect(.start(1))])

        var unserved = RuntimeState()
        let other = try readyLogin(in: &unserved)
        let (pending, none) = try send(&unserved, other, action("submit"))
        #expect(pending["effects"]?.arrayValue?.first?["status"] == "pending")
        #expect(none.isEmpty)
    }

    @Test func theHostResolvesAPendingEffectOnce() throws {
        var state = RuntimeState()
        let login = try readyLogin(in: &state)
        _ = try send(&state, login, action("submit"))
        var steps: [Step] = []
        let response = try state.resolve(effect: 1, outcome: .failure(["message": "no"]), env: World(), steps: &steps).json
        #expect(response["viewModel"]?["error"] == "no")
        #expect(steps == [.ended(1)])
        #expect(state.effects.records.isEmpty)
        let again = yaiaError { () throws(YaiaError) in
            try state.resolve(effect: 1, outcome: .success(1), env: World(), steps: &steps)
        }
        #expect(again?.code == .effectAlreadyResolved)
    }

    @Test func aServiceOutcomeBecomesAnEventOfItsScene() throws {
        var state = RuntimeState()
        let (_, world) = try submitted(in: &state)
        var steps: [Step] = []
        let update = state.complete(effect: 1, outcome: .failure(["message": "refused"]), env: world, steps: &steps).json
        #expect(update?["event"] == "update" && update?["effect"] == 1)
        #expect(steps.first == .ended(1))
        #expect(events(steps).map { $0["viewModel"]?["error"] } == ["refused"])
        // A second outcome for the same call is dropped.
        var more: [Step] = []
        #expect(state.complete(effect: 1, outcome: .success(1), env: world, steps: &more).json == nil)
        #expect(more.isEmpty)
    }

    @Test func aTimeOutIsDecidedByTheTimeGiven() throws {
        var state = RuntimeState()
        let search = try open("example/search", in: &state)
        var world = World()
        world.services = ["search"]
        world.now = 100
        let (_, steps) = try send(&state, search, action("queryChanged", "swift"), world: world)
        #expect(steps == [.effect(.arm(1, at: 105)), .effect(.start(1))])
        var later: [Step] = []
        world.now = 104.9
        #expect(!state.isDue(1, at: world.now))
        #expect(state.timeOut(effect: 1, outcome: state.timeoutOutcome(1), env: world, steps: &later).json == nil)
        #expect(later.isEmpty)
        world.now = 105
        let update = state.timeOut(effect: 1, outcome: state.timeoutOutcome(1), env: world, steps: &later).json
        #expect(later.first == .effect(.cancel(1)))
        #expect(update?["viewModel"]?["error"] != .null)
        #expect(state.effects.records.isEmpty)
    }

    @Test func latestCancelsTheQueryBefore() throws {
        var state = RuntimeState()
        let search = try open("example/search", in: &state)
        var world = World()
        world.services = ["search"]
        _ = try send(&state, search, action("queryChanged", "s"), world: world)
        let (response, steps) = try send(&state, search, action("queryChanged", "sw"), world: world)
        #expect(steps == [.effect(.cancel(1)), .effect(.arm(2, at: 5)), .effect(.start(2))])
        #expect(response["effects"]?.arrayValue?.first?["id"] == 2)
        // Clearing the query cancels by key.
        let (_, cleared) = try send(&state, search, action("queryChanged", ""), world: world)
        #expect(cleared == [.effect(.cancel(2))])
    }

    @Test func closingASceneCancelsItsEffects() throws {
        var state = RuntimeState()
        let (login, _) = try submitted(in: &state)
        var steps: [Step] = []
        try state.close(scene: login, steps: &steps)
        #expect(steps == [.effect(.cancel(1))])
        #expect(state.scenes.isEmpty && state.effects.records.isEmpty)
        #expect(yaiaError { () throws(YaiaError) in try state.close(scene: login, steps: &steps) }?.code == .noSuchScene)
    }

    @Test func aFlowPushesAndAResultComesBackWhenPopped() throws {
        var state = RuntimeState()
        let world = World()
        let home = try state.startFlow(name: "main", scene: "example/home", value: try world.openScene("example/home", args: [:]))
        let flow = try #require(home["flow"]?.int64Value)
        var steps: [Step] = []
        _ = try state.send(.flow(flow), action("loaded", ["items": [["key": "item/1", "value": ["title": "One"]]]]),
                           env: world, steps: &steps)
        let selected = try state.send(.flow(flow), action("select", "item/1"), env: world, steps: &steps).json
        #expect(selected["flow"] == .int(flow))
        #expect(selected["stack"]?.arrayValue?.map { $0["scene"] } == ["example/home", "example/detail"])
        let detail = try #require(state.flows[flow]?.flow.top.scene)
        _ = try state.send(.flow(flow), action("titleChanged", "Eins"), env: world, steps: &steps)
        _ = try state.send(.flow(flow), action("save"), env: world, steps: &steps)
        // The store is the host's: the save waits for it; its outcome pops the detail with its result.
        steps = []
        let saved = try state.resolve(effect: 1, outcome: .success(.null), env: world, steps: &steps).json
        #expect(saved["routes"]?.arrayValue?.first?["pop"] == true)
        #expect(state.scenes[detail] == nil)
        #expect(state.flows[flow]?.flow.depth == 1)
        // The home scene received the result, as an event after the answer.
        #expect(events(steps).map { $0["from"] } == [.int(detail)])
        #expect(events(steps).first?["viewModel"]?["items"]?.arrayValue?.first?["title"] == "Eins")
    }

    @Test func aSnapshotRestoresIntoAFreshState() throws {
        var state = RuntimeState()
        let login = try readyLogin(in: &state)
        _ = try send(&state, login, action("submit"))
        let image = try state.snapshot()
        var fresh = RuntimeState()
        var steps: [Step] = []
        let scene = try #require(state.scenes[login])
        let record = try #require(state.effects[1])
        let restored = RuntimeState.Restored(scenes: [scene], flows: [], effects: [.init(id: 1, scene: login, effect: record.effect, queued: false)],
                                             next: (2, 2, 1))
        let answer = try fresh.restore(restored, replaying: true, env: World(), steps: &steps)
        #expect(answer["effects"]?["awaiting"] == [1])
        #expect(try fresh.snapshot() == image)
    }

    @Test func aDirectCallIsAnsweredOrGivenUp() throws {
        var state = RuntimeState()
        let effect = Effect(service: "auth", op: "login")
        let (id, steps) = state.direct(effect, timeout: 3, now: 10)
        #expect(id == -1 && steps == [.effect(.arm(-1, at: 13)), .effect(.start(-1))])
        var world = World()
        world.now = 13
        var answered: [Step] = []
        #expect(state.timeOut(effect: id, outcome: state.timeoutOutcome(id), env: world, steps: &answered).json == nil)
        #expect(answered == [.answer(-1, nil)])
        let (other, _) = state.direct(effect, timeout: 3, now: 10)
        answered = []
        #expect(state.complete(effect: other, outcome: .success(1), env: world, steps: &answered).json == nil)
        #expect(answered == [.answer(-2, .success(1))])
    }

    @Test func theScenesLimitIsKept() throws {
        var state = RuntimeState(sceneLimit: 1)
        _ = try open("example/login", in: &state)
        let error = yaiaError { () throws(YaiaError) in try state.open(try World().openScene("example/login", args: [:])) }
        #expect(error?.code == .limitExceeded && error?.limit == "scenes")
    }

    @Test func anUpdatesTextIsItsTreesText() throws {
        var state = RuntimeState()
        let world = World()
        let home = try state.startFlow(name: "main", scene: "example/home", value: try world.openScene("example/home", args: [:]))
        let scene = try #require(home["scene"]?.int64Value)
        let sends = [#"{"type":"loaded","payload":{"items":[{"key":"item/1","value":{"title":"One"}}]}}"#,
                     #"{"type":"select","payload":"item/1"}"#, #"{"type":"load"}"#]
        var stacked = 0, withEffects = 0
        for text in sends {
            try Array(text.utf8).withUnsafeBufferPointer { buffer in
                var steps: [Step] = []
                let update = try state.send(.scene(scene), .text(try ActionText(parsing: buffer)), env: world, steps: &steps)
                var written = JSONWriter()
                let last = update.writeObject(into: &written)
                let tree = update.json
                var expected = JSONWriter()
                guard case .object(let o) = tree else { Issue.record("not an object"); return }
                #expect(last == expected.writeObject(o))
                #expect(written.withBytes { Array($0) } == expected.withBytes { Array($0) }, "\(text)")
                // What a journal digests: the stack, when it changed, and the view model.
                let digested = update.digested.json
                #expect(digested == .object(JSONObject(members: o.members.filter { $0.key == "stack" || $0.key == "viewModel" })))
                if update.flow != nil { stacked += 1 }
                if !update.effects.isEmpty { withEffects += 1 }
            }
        }
        #expect(stacked == 1 && withEffects == 1)
    }
}

extension RuntimeState.Completion {
    /// The update's tree; `{}` when the effect ended with nothing reduced; nil when nothing happened.
    var json: JSON? {
        switch self {
        case .none: nil
        case .ended: [:]
        case .reduced(let update): update.json
        }
    }
}
