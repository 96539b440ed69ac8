import Testing
import YaiaCore
import YaiaKit
@testable import YaiaRuntime

/// A Swift scene holding whatever its open arguments give it: a state as
/// deep as a request can carry.
struct Holder: SceneState {
    struct Action: SceneAction {
        init(_ action: YaiaKit.Action) throws(YaiaError) { throw YaiaError(.unknownAction, "a holder takes no actions") }
    }
    static let name = "test/holder"
    var held: JSON
    init(args: JSON) throws(YaiaError) { held = args["v"] ?? .null }
    init(json: JSON) throws(YaiaError) { held = json["held"] ?? .null }
    var json: JSON { ["held": held] }
    mutating func reduce(_ action: Action) -> [Command] { [] }
    var viewModel: JSON { [:] }
}

/// Nesting bounded by the "depth" limit: documents whose paths, values or
/// expressions go deeper are answered with a code, never a crash, and what a
/// runtime saves, it restores.
@Suite struct DepthTests {
    static let steps = [20_000, 100_000]

    func runtime(depth: Int = 512) -> Runtime {
        var limits = Limits()
        limits.depth = depth
        var catalog = Catalog()
        catalog.register(Holder.self)
        return Runtime(catalog: catalog, grants: Grants(ops: ["register", "snapshot", "restore"]), limits: limits)
    }

    /// The request registering `document` (JSON text), then opening it: the scene's id.
    func open(_ rt: Runtime, _ document: String, sourceLocation: SourceLocation = #_sourceLocation) -> Int64? {
        let registered = rt.run(#"{"op":"register","document":\#(document)}"#)
        #expect(registered["ok"] == true, "\(registered)", sourceLocation: sourceLocation)
        let opened = rt.run(#"{"op":"open","scene":"t/deep"}"#)
        return opened["scene"]?.int64Value
    }

    /// The runtime still opens, sends and answers.
    func expectUsable(_ rt: Runtime, sourceLocation: SourceLocation = #_sourceLocation) {
        let answer = rt.run(#"{"op":"open","scene":"test/holder","args":{"v":[1]}}"#)
        #expect(answer["ok"] == true, "\(answer)", sourceLocation: sourceLocation)
        #expect(rt.run(#"{"op":"limits"}"#)["ok"] == true, sourceLocation: sourceLocation)
    }

    func dotted(_ count: Int) -> String { "x" + String(repeating: ".b", count: count - 1) }

    @Test("a set path of 20,000 or 100,000 steps is refused when the document is read", arguments: steps)
    func longSetPath(count: Int) throws {
        let rt = runtime()
        let document = #"{"yaia":1,"scene":"t/deep","state":{"x":{}},"actions":{"go":{"set":{"\#(dotted(count))":1}}}}"#
        let answer = rt.run(#"{"op":"register","document":\#(document)}"#)
        #expect(answer["error"]?["code"] == "bad_document")
        #expect(answer["error"]?["problems"]?.arrayValue?.first?["code"] == "bad_path")
        expectUsable(rt)
    }

    @Test("a set path within the document's bound but past the runtime's limit fails the send, state unchanged")
    func pathPastTheLimit() throws {
        let rt = runtime(depth: 64)
        let id = try #require(open(rt, #"{"yaia":1,"scene":"t/deep","state":{"x":{}},"actions":{"go":{"set":{"\#(dotted(100))":1}}}}"#))
        let answer = rt.run(#"{"op":"send","scene":\#(id),"action":{"type":"go"}}"#)
        #expect(answer["error"]?["code"] == "limit_exceeded")
        #expect(answer["error"]?["limit"] == "depth")
        #expect(rt.run(#"{"op":"state","scene":\#(id)}"#)["state"] == ["x": [:]])
        expectUsable(rt)
    }

    @Test("a var path of 20,000 or 100,000 steps reads nothing, and the send goes through", arguments: steps)
    func longVarPath(count: Int) throws {
        let rt = runtime()
        let id = try #require(open(rt, #"{"yaia":1,"scene":"t/deep","state":{"x":1},"actions":{"go":{"set":{"x":{"var":"state.\#(dotted(count))"}}}}}"#))
        let answer = rt.run(#"{"op":"send","scene":\#(id),"action":{"type":"go"}}"#)
        #expect(answer["ok"] == true, "\(answer)")
        #expect(rt.run(#"{"op":"state","scene":\#(id)}"#)["state"] == ["x": .null])
        expectUsable(rt)
    }

    @Test("deeply nested expressions, payloads and documents are refused by the parser with the depth code")
    func deepTexts() {
        let rt = runtime()
        let deep = String(repeating: #"{"!":"#, count: 100_000) + "true" + String(repeating: "}", count: 100_000)
        let expression = rt.run(#"{"op":"register","document":{"yaia":1,"scene":"t/deep","state":{"x":\#(deep)},"actions":{}}}"#)
        #expect(expression["error"]?["code"] == "limit_exceeded")
        #expect(expression["error"]?["limit"] == "depth")
        let value = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let payload = rt.run(#"{"op":"open","scene":"test/holder","args":{"v":\#(value)}}"#)
        #expect(payload["error"]?["limit"] == "depth")
        expectUsable(rt)
    }

    @Test("a state that nests a level per send stops at the limit; what was saved restores")
    func growingState() throws {
        let depth = 64
        let rt = runtime(depth: depth)
        let id = try #require(open(rt, #"{"yaia":1,"scene":"t/deep","state":{"x":0},"actions":{"wrap":{"set":{"x":{"w":{"var":"state.x"}}}}}}"#))
        var sent = 0
        var refusal: JSON?
        while sent < 2 * depth {
            let answer = rt.run(#"{"op":"send","scene":\#(id),"action":{"type":"wrap"}}"#)
            if answer["ok"] != true { refusal = answer["error"]; break }
            sent += 1
        }
        // The state object is one level, then one per send.
        #expect(sent == depth - 1)
        #expect(refusal?["code"] == "limit_exceeded")
        #expect(refusal?["limit"] == "depth")
        let state = try #require(rt.run(#"{"op":"state","scene":\#(id)}"#)["state"])
        #expect(state.depth(upTo: 1000) == depth)

        // The snapshot goes back as text, through a fresh runtime with the same limits.
        let snapshot = try #require(rt.run(#"{"op":"snapshot"}"#)["snapshot"])
        let text = snapshot.description
        let other = runtime(depth: depth)
        let restored = other.run(#"{"op":"restore","snapshot":\#(text)}"#)
        #expect(restored["ok"] == true, "\(restored)")
        #expect(other.run(#"{"op":"state","scene":\#(id)}"#)["state"] == state)
        // A runtime of a lower limit refuses it with a code.
        let lower = runtime(depth: depth / 2)
        #expect(lower.run(#"{"op":"restore","snapshot":\#(text)}"#)["error"]?["limit"] == "depth")
    }

    @Test("opening a document whose initial state would nest past the limit is refused")
    func deepInitialState() throws {
        let rt = runtime(depth: 16)
        let answer = rt.run(#"{"op":"register","document":{"yaia":1,"scene":"t/deep","args":{"v":{"default":null}},"state":{"x":{"a":{"var":"args.v"}}},"actions":{}}}"#)
        #expect(answer["ok"] == true, "\(answer)")
        let value = String(repeating: "[", count: 15) + String(repeating: "]", count: 15)
        let opened = rt.run(#"{"op":"open","scene":"t/deep","args":{"v":\#(value)}}"#)
        #expect(opened["error"]?["limit"] == "depth", "\(opened)")
        expectUsable(rt)
    }

    @Test("a snapshot deeper than a restore reads is refused with the depth code; the runtime goes on")
    func deepSnapshot() throws {
        let rt = runtime(depth: 16)
        // The open request may carry 8 levels more than the limit, and the holder keeps them.
        let value = String(repeating: "[", count: 22) + String(repeating: "]", count: 22)
        #expect(rt.run(#"{"op":"open","scene":"test/holder","args":{"v":\#(value)}}"#)["ok"] == true)
        let answer = rt.run(#"{"op":"snapshot"}"#)
        #expect(answer["error"]?["code"] == "limit_exceeded")
        #expect(answer["error"]?["limit"] == "depth")
        expectUsable(rt)
    }

    @Test("a document deeper than the limit is not registered")
    func deepDocument() {
        let rt = runtime(depth: 8)
        let value = String(repeating: "[", count: 8) + String(repeating: "]", count: 8)
        let answer = rt.run(#"{"op":"register","document":{"yaia":1,"scene":"t/deep","state":{"x":\#(value)},"actions":{}}}"#)
        #expect(answer["error"]?["limit"] == "depth", "\(answer)")
    }
}
