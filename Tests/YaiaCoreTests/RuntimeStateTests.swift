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
        var stacked = false
        let response = try state.reduce(scene, action, cause: .request, env: world, steps: &steps, stacked: &stacked)
        return (response, steps)
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
        steps.compactMap { if case .event(let e) = $0 { return e } else { return nil } }
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
        var stacked = false
        let response = try state.resolve(effect: 1, outcome: .failure(["message": "no"]), env: World(), steps: &steps, stacked: &stacked)
        #expect(response["viewModel"]?["error"] == "no")
        #expect(steps == [.ended(1)])
        #expect(state.effects.records.isEmpty)
        let again = yaiaError { () throws(YaiaError) in
            try state.resolve(effect: 1, outcome: .success(1), env: World(), steps: &steps, stacked: &stacked)
        }
        #expect(again?.code == .effectAlreadyResolved)
    }

    @Test func aServiceOutcomeBecomesAnEventOfItsScene() throws {
        var state = RuntimeState()
        let (_, world) = try submitted(in: &state)
        var steps: [Step] = []
        var stacked = false
        let update = state.complete(effect: 1, outcome: .failure(["message": "refused"]), env: world, steps: &steps, stacked: &stacked)
        #expect(update?["event"] == "update" && update?["effect"] == 1)
        #expect(steps.first == .ended(1))
        #expect(events(steps).map { $0["viewModel"]?["error"] } == ["refused"])
        // A second outcome for the same call is dropped.
        var more: [Step] = []
        #expect(state.complete(effect: 1, outcome: .success(1), env: world, steps: &more, stacked: &stacked) == nil)
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
        var stacked = false
        world.now = 104.9
        #expect(!state.isDue(1, at: world.now))
        #expect(state.timeOut(effect: 1, outcome: state.timeoutOutcome(1), env: world, steps: &later, stacked: &stacked) == nil)
        #expect(later.isEmpty)
        world.now = 105
        let update = state.timeOut(effect: 1, outcome: state.timeoutOutcome(1), env: world, steps: &later, stacked: &stacked)
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
        var stacked = false
        _ = try state.send(flow: flow, action: action("loaded", ["items": [["key": "item/1", "value": ["title": "One"]]]]),
                           env: world, steps: &steps, stacked: &stacked)
        let selected = try state.send(flow: flow, action: action("select", "item/1"), env: world, steps: &steps, stacked: &stacked)
        #expect(stacked)
        #expect(selected["stack"]?.arrayValue?.map { $0["scene"] } == ["example/home", "example/detail"])
        let detail = try #require(state.flows[flow]?.flow.top.scene)
        _ = try state.send(flow: flow, action: action("titleChanged", "Eins"), env: world, steps: &steps, stacked: &stacked)
        _ = try state.send(flow: flow, action: action("save"), env: world, steps: &steps, stacked: &stacked)
        // The store is the host's: the save waits for it; its outcome pops the detail with its result.
        steps = []
        let saved = try state.resolve(effect: 1, outcome: .success(.null), env: world, steps: &steps, stacked: &stacked)
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
        let answer = try fresh.restore(scenes: [scene], flows: [], effects: [.init(id: 1, scene: login, effect: record.effect, queued: false)],
                                       next: (2, 2, 1), replaying: true, env: World(), steps: &steps)
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
        var stacked = false
        #expect(state.timeOut(effect: id, outcome: state.timeoutOutcome(id), env: world, steps: &answered, stacked: &stacked) == nil)
        #expect(answered == [.answer(-1, nil)])
        let (other, _) = state.direct(effect, timeout: 3, now: 10)
        answered = []
        #expect(state.complete(effect: other, outcome: .success(1), env: world, steps: &answered, stacked: &stacked) == nil)
        #expect(answered == [.answer(-2, .success(1))])
    }

    @Test func theScenesLimitIsKept() throws {
        var state = RuntimeState(sceneLimit: 1)
        _ = try open("example/login", in: &state)
        let error = yaiaError { () throws(YaiaError) in try state.open(try World().openScene("example/login", args: [:])) }
        #expect(error?.code == .limitExceeded && error?.limit == "scenes")
    }

    /// A scene that, like a pack's, reads an action's text: it keeps what it was handed.
    struct TextReader: LiveScene {
        var seen: JSON = .null
        var name: String { "test/text" }
        var readsActionText: Bool { true }
        func check(_ action: Action) throws(YaiaError) {}
        mutating func reduce(_ action: Action) throws(YaiaError) -> [Command] {
            seen = ["skipped": .bool(action.payloadSkipped), "payload": action.payload ?? .null]
            return []
        }
        var viewModel: JSON { seen }
        var json: JSON { seen }
    }

    /// Sends `text` read without its payload, as a C send does.
    func sendSkipped(_ state: inout RuntimeState, _ scene: Int64, _ text: String, world: World = World()) throws -> (JSON, [Step]) {
        try Array(text.utf8).withUnsafeBufferPointer { buffer in
            let action = try Action(parsing: buffer, skippingPayload: true)
            #expect(action.payloadSkipped)
            var steps: [Step] = []
            var stacked = false
            var closed: RuntimeState.OpenScene?
            var written = JSONWriter()
            var last = 0
            if let tree = try state.reduce(scene, action, text: buffer, env: world, steps: &steps, stacked: &stacked, closed: &closed,
                                           writingInto: &written, lastMember: &last) {
                return (tree, steps)
            }
            let text = written.withBytes { Array($0) }
            return (try JSONParser.parse(text), steps)
        }
    }

    @Test func aPayloadLeftInTheTextIsBuiltOnlyForScenesThatReadValues() throws {
        var state = RuntimeState()
        let reader = try #require(try state.open(TextReader())["scene"]?.int64Value)
        #expect(state.scenes.allReadActionText)
        _ = try sendSkipped(&state, reader, #"{"type":"t","payload":{"b":[1],"a":2}}"#)
        #expect(try state.state(scene: reader)["state"] == ["payload": .null, "skipped": true])

        // A scene of values gets the payload built from the text.
        let jobs = try open("example/jobs", in: &state)
        #expect(!state.scenes.allReadActionText)
        var world = World()
        world.services = ["echo"]
        let (response, _) = try sendSkipped(&state, jobs, #"{"type":"run","payload":{"service":"echo","op":"say","args":[1]}}"#, world: world)
        let effect = try #require(response["effects"]?.arrayValue?.first)
        #expect(effect["service"] == "echo" && effect["op"] == "say" && effect["args"] == [1])
        var steps: [Step] = []
        try state.close(scene: jobs, steps: &steps)
        #expect(state.scenes.allReadActionText)

        // Inspected, the action's event shows its payload; the scene still reads the text.
        state.inspecting = true
        let (_, inspected) = try sendSkipped(&state, reader, #"{"type":"t","payload":[3]}"#)
        #expect(events(inspected).first?["action"] == ["payload": [3], "type": "t"])
        #expect(try state.state(scene: reader)["state"] == ["payload": .null, "skipped": true])
    }

    @Test func aResponseWrittenAsReducedIsTheTreesText() throws {
        var tree = RuntimeState()
        let world = World()
        let home = try tree.startFlow(name: "main", scene: "example/home", value: try world.openScene("example/home", args: [:]))
        let scene = try #require(home["scene"]?.int64Value)
        var direct = tree
        let sends = [#"{"type":"loaded","payload":{"items":[{"key":"item/1","value":{"title":"One"}}]}}"#,
                     #"{"type":"select","payload":"item/1"}"#, #"{"type":"load"}"#]
        var wroteDirectly = 0, withEffects = 0
        for text in sends {
            try Array(text.utf8).withUnsafeBufferPointer { buffer in
                let action = try Action(parsing: buffer)
                var treeSteps: [Step] = [], directSteps: [Step] = []
                var stacked = false, directStacked = false
                var directClosed: RuntimeState.OpenScene?
                let response = try tree.reduce(scene, action, cause: .request, env: world, steps: &treeSteps, stacked: &stacked)
                var expected = JSONWriter()
                guard case .object(let o) = response else { Issue.record("not an object"); return }
                let treeLast = expected.writeObject(o)

                var written = JSONWriter()
                var last = -1
                if let fallback = try direct.reduce(scene, action, text: buffer, env: world, steps: &directSteps, stacked: &directStacked,
                                                    closed: &directClosed, writingInto: &written, lastMember: &last) {
                    // With a route the tree is answered, and nothing written.
                    #expect(written.byteCount == 0 && last == -1)
                    // Its view model is left for the caller to write.
                    var filled = fallback.objectValue
                    filled?["viewModel"] = response["viewModel"]
                    #expect(filled.map(JSON.object) == response && directStacked == stacked)
                    return
                }
                wroteDirectly += 1
                let (mine, theirs) = (written.takeText(), expected.takeText())
                #expect(mine != nil && mine == theirs, "\(text)")
                if response["effects"]?.arrayValue?.isEmpty == false { withEffects += 1 }
                #expect(last == treeLast)
                #expect(directSteps == treeSteps)
            }
        }
        #expect(wroteDirectly == 2 && withEffects == 1)
    }
}
