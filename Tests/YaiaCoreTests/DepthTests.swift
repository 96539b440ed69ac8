import Testing
import YaiaCore
import YaiaKit

/// How deeply values nest, and the bound a document scene keeps its state,
/// its effects' arguments and its routes within.
@Suite struct DepthTests {
    @Test func depthCountsAsTheParserDoes() throws {
        #expect(JSON.int(1).depth(upTo: 0) == 0)
        #expect(try json("[]").depth(upTo: 5) == 1)
        #expect(try json(#"{"a": [1, {"b": []}], "c": 2}"#).depth(upTo: 5) == 4)
        // Past the bound it stops looking: bound + 1.
        #expect(try json("[[[[[]]]]]").depth(upTo: 2) == 3)
        #expect(try json("[[[[[]]]]]").nests(within: 5))
        #expect(try !json("[[[[[]]]]]").nests(within: 4))
        #expect(try !json("[]").nests(within: 0))
    }

    func scene(_ text: String, maxDepth: Int) throws -> DocumentScene {
        var scene = try DocumentScene(try json(text))
        scene.maxDepth = maxDepth
        return scene
    }

    @Test func aSetThatWouldNestTheStateTooDeepFailsAndChangesNothing() throws {
        let s = try scene(#"{"yaia":1,"scene":"t/d","state":{"x":0},"actions":{"wrap":{"set":{"x":{"w":{"var":"state.x"}}}}}}"#, maxDepth: 10)
        var value = try s.open()
        for _ in 0..<9 { _ = try value.reduce(Action("wrap")) }
        #expect(JSON.object(value.state).depth(upTo: 100) == 10)
        let before = value.state
        let error = yaiaError { () throws(YaiaError) in try value.reduce(Action("wrap")) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == "depth")
        #expect(value.state == before)
        // What it holds restores; one level more does not.
        #expect(throws: Never.self) { try s.restore(state: .object(before)) }
        let deeper = yaiaError { () throws(YaiaError) in try s.restore(state: ["x": ["w": .object(before)]]) }
        #expect(deeper?.code == .badState)
    }

    @Test func effectArgumentsAndRouteValuesNestWithinTheBound() throws {
        let s = try scene(#"""
            {"yaia":1,"scene":"t/d","state":{"x":[[[[]]]]},"actions":{
              "call":{"effects":[{"service":"s","op":"o","args":{"a":{"b":{"var":"state.x"}}}}]},
              "back":{"route":{"pop":true,"result":[[{"var":"state.x"}]]}}}}
            """#, maxDepth: 5)
        var value = try s.open()
        #expect(yaiaError { () throws(YaiaError) in try value.reduce(Action("call")) }?.limit == "depth")
        #expect(yaiaError { () throws(YaiaError) in try value.reduce(Action("back")) }?.limit == "depth")
        var wider = try scene(#"{"yaia":1,"scene":"t/d","state":{"x":[[[[]]]]},"actions":{"call":{"effects":[{"service":"s","op":"o","args":{"a":{"b":{"var":"state.x"}}}}]}}}"#, maxDepth: 6).open()
        #expect(try wider.reduce(Action("call")).count == 1)
    }

    @Test(arguments: [513, 20_000, 100_000])
    func aSetPathLongerThanAnyStateNestsIsAProblem(steps: Int) throws {
        let path = "x" + String(repeating: ".b", count: steps - 1)
        let problems = SceneDocument.check(try json(#"{"yaia":1,"scene":"t/d","state":{"x":{}},"actions":{"go":{"set":{"\#(path)":1}}}}"#))
        #expect(problems.map(\.code) == [.badPath])
    }

    @Test func aSetPathOfTheMostStepsIsRead() throws {
        let path = "x" + String(repeating: ".b", count: 511)
        #expect(SceneDocument.check(try json(#"{"yaia":1,"scene":"t/d","state":{"x":{}},"actions":{"go":{"set":{"\#(path)":1}}}}"#)).isEmpty)
    }
}
