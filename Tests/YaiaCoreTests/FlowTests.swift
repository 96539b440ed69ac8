import Testing
import YaiaCore
import YaiaKit

/// The flow reducer, with values only: a stack, a route, the steps and the stack after.
@Suite struct FlowReducerTests {
    typealias Entry = Flow.Entry

    /// login (1) → home (2) → detail (3, onResult itemSaved)
    func threeDeep() -> Flow {
        Flow(entries: [
            Entry(scene: 1, name: "example/login", presentation: .root),
            Entry(scene: 2, name: "example/home", presentation: .push),
            Entry(scene: 3, name: "example/detail", presentation: .push, onResult: "itemSaved"),
        ], version: 3)
    }

    @Test func rootFlowStartsAtVersionOne() {
        let flow = Flow(root: Entry(scene: 1, name: "example/login", presentation: .push))
        #expect(flow.entries == [Entry(scene: 1, name: "example/login", presentation: .root)])
        #expect(flow.version == 1)
        #expect(flow.depth == 1)
    }

    @Test func pushOpensOnTopWithTheNextID() throws {
        var flow = Flow(root: Entry(scene: 1, name: "example/login", presentation: .root))
        var next: Int64 = 7
        let steps = try flow.apply(.push("example/home", args: ["user": "u"], onResult: "back"), from: 1, nextID: &next)
        #expect(steps == [.open(id: 7, name: "example/home", args: ["user": "u"])])
        #expect(flow.top == Entry(scene: 7, name: "example/home", presentation: .push, onResult: "back"))
        #expect(flow.version == 2)
        #expect(next == 8)
    }

    @Test func pushWithoutArgsOpensWithAnEmptyObject() throws {
        var flow = Flow(root: Entry(scene: 1, name: "a", presentation: .root))
        var next: Int64 = 2
        #expect(try flow.apply(.push("b"), from: 1, nextID: &next) == [.open(id: 2, name: "b", args: [:])])
    }

    @Test func presentStartsAModalLayerThatCanPushInside() throws {
        var flow = threeDeep()
        var next: Int64 = 4
        _ = try flow.apply(.present("example/about", onResult: "aboutClosed"), from: 3, nextID: &next)
        _ = try flow.apply(.push("example/more"), from: 4, nextID: &next)
        #expect(flow.entries.map(\.presentation) == [.root, .push, .push, .present, .push])
        #expect(flow.topLayerStart == 3)
    }

    @Test func replaceSwapsTheTopInPlace() throws {
        var flow = threeDeep()
        var next: Int64 = 9
        let steps = try flow.apply(.replace("example/other", args: ["x": 1]), from: 3, nextID: &next)
        #expect(steps == [.close([3]), .open(id: 9, name: "example/other", args: ["x": 1])])
        #expect(flow.top == Entry(scene: 9, name: "example/other", presentation: .push, onResult: "itemSaved"))
        #expect(flow.depth == 3)
    }

    @Test func popWithAResultDeliversItBelowAsTheOnResultAction() throws {
        var flow = threeDeep()
        var next: Int64 = 4
        let result: JSON = ["key": "item/2", "title": "Two"]
        let steps = try flow.apply(.pop(result: result), from: 3, nextID: &next)
        #expect(steps == [.close([3]), .deliver(to: 2, action: Action("itemSaved", payload: result), from: 3)])
        #expect(flow.entries.map(\.scene) == [1, 2])
        #expect(flow.version == 4)
    }

    @Test func popWithoutAResultDeliversNothing() throws {
        var flow = threeDeep()
        var next: Int64 = 4
        #expect(try flow.apply(.pop(), from: 3, nextID: &next) == [.close([3])])
    }

    @Test func aResultWithoutOnResultIsDropped() throws {
        var flow = threeDeep()
        var next: Int64 = 4
        _ = try flow.apply(.push("x"), from: 3, nextID: &next)
        #expect(try flow.apply(.pop(result: 1), from: 4, nextID: &next) == [.close([4])])
    }

    @Test func theRootCannotBePopped() {
        var flow = Flow(root: Entry(scene: 1, name: "a", presentation: .root))
        var next: Int64 = 2
        #expect(throws: YaiaError.self) { try flow.apply(.pop(), from: 1, nextID: &next) }
        #expect(flow.version == 1)
    }

    @Test func dismissClosesTheWholeModalLayerAndDeliversToTheSceneBelowIt() throws {
        var flow = threeDeep()
        var next: Int64 = 4
        _ = try flow.apply(.present("example/about", onResult: "aboutClosed"), from: 3, nextID: &next)
        _ = try flow.apply(.push("example/more"), from: 4, nextID: &next)
        let steps = try flow.apply(.dismiss(result: "ok"), from: 5, nextID: &next)
        #expect(steps == [.close([5, 4]), .deliver(to: 3, action: Action("aboutClosed", payload: "ok"), from: 4)])
        #expect(flow.entries.map(\.scene) == [1, 2, 3])
    }

    @Test func dismissWithNothingPresentedIsRefused() {
        var flow = threeDeep()
        var next: Int64 = 4
        let before = flow
        #expect { try flow.apply(.dismiss(), from: 3, nextID: &next) } throws: { ($0 as? YaiaError)?.code == .staleNavigation }
        #expect(flow == before)
    }

    @Test func popToRootStaysInsideTheTopLayer() throws {
        var flow = threeDeep()
        var next: Int64 = 4
        #expect(try flow.apply(.popToRoot, from: 3, nextID: &next) == [.close([3, 2])])
        #expect(flow.entries.map(\.scene) == [1])

        var modal = threeDeep()
        _ = try modal.apply(.present("m"), from: 3, nextID: &next)
        let m = next - 1
        _ = try modal.apply(.push("m2"), from: m, nextID: &next)
        #expect(try modal.apply(.popToRoot, from: next - 1, nextID: &next) == [.close([next - 1])])
        #expect(modal.top.scene == m)
    }

    @Test func popToRootAtTheRootChangesNothing() throws {
        var flow = Flow(root: Entry(scene: 1, name: "a", presentation: .root))
        var next: Int64 = 2
        #expect(try flow.apply(.popToRoot, from: 1, nextID: &next) == [])
        #expect(flow.version == 1)
    }

    @Test func popToTheNearestSceneOfAType() throws {
        var flow = threeDeep()
        var next: Int64 = 4
        _ = try flow.apply(.push("example/home"), from: 3, nextID: &next)
        _ = try flow.apply(.push("x"), from: 4, nextID: &next)
        #expect(try flow.apply(.popTo("example/home"), from: 5, nextID: &next) == [.close([5])])
        #expect(flow.top.scene == 4)
        #expect(try flow.apply(.popTo("example/home"), from: 4, nextID: &next) == [.close([4, 3])])
        #expect(flow.top.scene == 2)
    }

    @Test func popToAnAbsentTypeIsRefused() {
        var flow = threeDeep()
        var next: Int64 = 4
        #expect(throws: YaiaError.self) { try flow.apply(.popTo("example/nowhere"), from: 3, nextID: &next) }
        #expect(flow == threeDeep())
    }

    @Test(arguments: [
        Route.push("x"), .present("x"), .replace("x"), .pop(), .dismiss(), .popToRoot, .popTo("example/login"),
    ])
    func onlyTheTopSceneNavigates(route: Route) {
        var flow = threeDeep()
        var next: Int64 = 4
        #expect { try flow.apply(route, from: 2, nextID: &next) } throws: { ($0 as? YaiaError)?.code == .staleNavigation }
        #expect(flow == threeDeep())
        #expect(next == 4)
    }

    // MARK: reconciliation

    @Test func poppedKeepsTheFirstDepthEntries() throws {
        var flow = threeDeep()
        #expect(try flow.popped(toDepth: 1) == [.close([3, 2])])
        #expect(flow.entries.map(\.scene) == [1])
        #expect(flow.version == 4)
    }

    @Test func poppedDeliversNoResult() throws {
        var flow = threeDeep()
        #expect(try flow.popped(toDepth: 2) == [.close([3])])
    }

    @Test(arguments: [0, -1, 3, 4, 100])
    func aDepthThatDoesNotExistIsStale(depth: Int) {
        var flow = threeDeep()
        #expect { try flow.popped(toDepth: depth) } throws: { ($0 as? YaiaError)?.code == .staleNavigation }
        #expect(flow == threeDeep())
    }

    @Test func theSameReportTwiceAppliesOnce() throws {
        var flow = threeDeep()
        _ = try flow.popped(toDepth: 2)
        let after = flow
        #expect(throws: YaiaError.self) { try flow.popped(toDepth: 2) }
        #expect(flow == after)
    }

    // MARK: deep links

    @Test func linkReplacesEverythingAboveTheRootInOneStep() {
        var flow = threeDeep()
        var next: Int64 = 10
        let steps = flow.link([("example/home", [:], .push), ("example/about", ["a": 1], .present)], nextID: &next)
        #expect(steps == [.close([3, 2]), .open(id: 10, name: "example/home", args: [:]),
                          .open(id: 11, name: "example/about", args: ["a": 1])])
        #expect(flow.entries.map(\.presentation) == [.root, .push, .present])
        #expect(flow.version == 4)
    }

    @Test func linkFromTheRootOnlyOpens() {
        var flow = Flow(root: Entry(scene: 1, name: "a", presentation: .root))
        var next: Int64 = 2
        #expect(flow.link([("b", [:], .push)], nextID: &next) == [.open(id: 2, name: "b", args: [:])])
    }

    // MARK: JSON forms

    @Test(arguments: [
        Route.push("a", args: ["x": 1], onResult: "r"), .present("b"), .replace("c", args: [:]), .pop(result: 3),
        .dismiss(), .popToRoot, .popTo("d"),
    ])
    func routesRoundTripThroughJSON(route: Route) throws {
        #expect(try Route(json: route.json) == route)
    }

    @Test func unreadableRoutesAreBadRoute() {
        for bad: JSON in [1, [:], ["push": 1], ["popTo": ""]] {
            #expect { try Route(json: bad) } throws: { ($0 as? YaiaError)?.code == .badRoute }
        }
    }

    @Test func flowsRoundTripThroughJSON() throws {
        let flow = threeDeep()
        #expect(try Flow(json: flow.json) == flow)
        #expect(throws: YaiaError.self) { try Flow(json: ["entries": [], "version": 1]) }
    }
}
