import Testing
@testable import YaiaCore
#if canImport(Glibc)
import Glibc
import YaiaKit
#endif

/// The hot paths write and read effects, commands and updates without
/// building JSON trees: they must agree byte for byte with the trees.
@Suite("Writing and reading without trees")
struct DirectWritingTests {
    static let effects: [Effect] = [
        Effect(service: "echo", op: "echo"),
        Effect(service: "store", op: "put", args: ["key": "k", "value": [1, "two", .null]], then: "saved", catch: "failed"),
        Effect(service: "s", op: "o", args: "quote \" and \\ and \n", options: .init(id: "search", timeout: 2.5, policy: .latest, restore: .reissue)),
        Effect(service: "s", op: "o", args: 7, then: "t", options: .init(id: "q", timeout: 30, policy: .queue, restore: .await)),
    ]

    static func text(_ body: (inout JSONWriter) -> Void) -> String {
        var w = JSONWriter()
        body(&w)
        return String(decoding: w.takeBytes(), as: UTF8.self)
    }

    @Test("an effect, a command and an action write their trees' bytes", arguments: effects)
    func effectsAndCommands(effect: Effect) {
        #expect(Self.text { effect.write(into: &$0) } == effect.json.serialized())
        let command = Command.effect(effect)
        #expect(Self.text { command.write(into: &$0) } == command.json.serialized())
        let action = Action("done", payload: effect.args, error: effect.then == nil, meta: effect.id.map(JSON.string))
        #expect(Self.text { action.write(into: &$0) } == action.json.serialized())
    }

    @Test("an effect record writes its tree's bytes", arguments: effects)
    func records(effect: Effect) {
        for status in [EffectTable.Record.Status.pending, .running, .queued] {
            let record = EffectTable.Record(id: 41, scene: 3, effect: effect, status: status)
            #expect(Self.text { record.write(into: &$0) } == record.json.serialized())
        }
    }

    static let lists: [String] = [
        "[]",
        " [ ] ",
        #"[{"effect":{"args":1,"catch":"failed","op":"echo","service":"echo","then":"done"}}]"#,
        #"[{"cancel":"search"},{"effect":{"service":"s","op":"o","id":"q","policy":"queue","timeout":3,"restore":"await","extra":[1,{"a":2}]}}]"#,
        #"[ {"route": {"push": "example/home", "args": {"user": 1}}} , {"cancel" : "k"} ]"#,
        // Later duplicates win, as in an object.
        #"[{"effect":{"service":"a","op":"o","service":"b","timeout":1,"timeout":2}}]"#,
        // An earlier duplicate that is wrong is checked no more than in a tree.
        #"[{"effect":{"service":"s","op":"o","timeout":"x","timeout":2}}]"#,
        // Keys read by their spelling: space, keys that begin like known ones, unknown ones.
        #"[{"effect":{ "args" : [1] ,"opx":1,"op" :"o","thenx":"x","then": "t","catch":"c","s":0,"service":"s","ca":1}}]"#,
    ]

    @Test("a list of commands reads as its items do one by one", arguments: lists)
    func plainLists(text: String) throws {
        let tree = try JSONParser.parse(text)
        let expected = try (tree.arrayValue ?? []).map { (item) throws(YaiaError) in try Command(json: item) }
        let read = Array(text.utf8).withUnsafeBufferPointer { Command.list(from: $0) }
        #expect(read != nil)
        #expect(read == expected)
    }

    static let refused: [String] = [
        "", "{}", "[", "[1]", "[{}]", #"[{"effect":{}}]"#, #"[{"effect":{"service":"s"}}]"#,
        #"[{"effect":{"service":"","op":"o"}}]"#, #"[{"effect":{"service":"s","op":"o","then":null}}]"#,
        #"[{"effect":{"service":"s","op":"o","timeout":0}}]"#, #"[{"effect":{"service":"s","op":"o","policy":"soon"}}]"#,
        #"[{"effect":{"service":"s","op":"o"},"cancel":"k"}]"#, #"[{"cancel":""}]"#, #"[{"go":1}]"#,
        #"[{"effect":{"service":"s","op":"o"}}] x"#, #"[{"effect":{"service":"s","op":"o","args":[[[1]]]}}]"#,
        // Not wrong, but left to the full parse all the same: an escaped key.
        #"[{"effect":{"serv\u0069ce":"s","op":"o"}}]"#,
    ]

    @Test("anything else is left to the full parse, which names the problem", arguments: refused)
    func otherLists(text: String) {
        // Nesting beyond the limit too: the args above are three levels below the list.
        let maxDepth = text.contains("[[[1]]]") ? 5 : JSONParser.defaultMaxDepth
        #expect(Array(text.utf8).withUnsafeBufferPointer { Command.list(from: $0, maxDepth: maxDepth) } == nil)
    }

    static let badEffects: [String] = [
        "{}", #"{"service":"s"}"#, #"{"service":"","op":"o"}"#, #"{"service":"s","op":1}"#, #"{"service":"s","op":"o","then":null}"#,
        #"{"service":"s","op":"o","catch":""}"#, #"{"service":"s","op":"o","id":7}"#, #"{"service":"s","op":"o","timeout":0}"#,
        #"{"service":"s","op":"o","timeout":"1"}"#, #"{"service":"s","op":"o","policy":"soon"}"#, #"{"service":"s","op":"o","restore":"later"}"#,
    ]

    @Test("an effect the tree refuses, the text refuses too", arguments: badEffects)
    func refusedEffects(text: String) throws {
        let tree = try JSONParser.parse(text)
        #expect(throws: YaiaError.self) { try Effect(json: tree) }
        let list = #"[{"effect":"# + text + "}]"
        #expect(Array(list.utf8).withUnsafeBufferPointer { Command.list(from: $0) } == nil)
    }

    static func text(of value: JSON) -> JSONText? {
        var w = JSONWriter()
        w.write(value)
        return w.takeText()
    }

    @Test("a text handed on is the writer's memory, taken only by its sole holder")
    func texts() throws {
        var text = try #require(Self.text(of: ["ok": true, "n": 1]))
        #expect(String(decoding: text.bytes, as: UTF8.self) == #"{"n":1,"ok":true}"#)
        var twin = text
        // Two holders: each gets a copy, and the text stays whole.
        let copy = try #require(JSONText.takeCString(&twin))
        #expect(String(cString: copy) == #"{"n":1,"ok":true}"#)
        free(copy)
        #expect(text == twin && text.count == 17)
        twin = try #require(Self.text(of: 1))
        #expect(text != twin)
        // The sole holder takes the memory itself: the text is left empty.
        let taken = try #require(JSONText.takeCString(&text))
        #expect(String(cString: taken) == #"{"n":1,"ok":true}"#)
        free(taken)
        #expect(text.bytes.isEmpty)
    }
}
