import Testing
import YaiaCore
import YaiaKit

/// The error applying `patch` (JSON text) to `doc` gives, or nil.
func patchError(_ patch: String, to doc: JSON, limits: JSONPatch.Limits = .init()) throws -> YaiaError? {
    let p = try json(patch)
    return yaiaError { () throws(YaiaError) in try JSONPatch.apply(patch: p, to: doc, limits: limits) }
}

@Suite("JSON Patch: apply")
struct JSONPatchApplyTests {
    @Test("every operation, in order")
    func everyOperation() throws {
        let doc = try json(#"{"a":{"b":[1,2,3]},"c":"x"}"#)
        let patch = try json(#"""
            [{"op":"add","path":"/a/b/1","value":9},
             {"op":"remove","path":"/a/b/0"},
             {"op":"replace","path":"/c","value":"y"},
             {"op":"move","from":"/c","path":"/d"},
             {"op":"copy","from":"/a/b","path":"/e"},
             {"op":"add","path":"/e/-","value":4},
             {"op":"test","path":"/e","value":[9,2,3,4]}]
            """#)
        #expect(try JSONPatch.apply(patch: patch, to: doc) == json(#"{"a":{"b":[9,2,3]},"d":"y","e":[9,2,3,4]}"#))
    }

    @Test("escaped tokens: ~0 is ~, ~1 is /, and nothing else follows ~")
    func pointerEscaping() throws {
        #expect(JSONPointer.tokens("") == [])
        #expect(JSONPointer.tokens("/") == [""])
        #expect(JSONPointer.tokens("/a~1b/m~0n/~01") == ["a/b", "m~n", "~1"])
        #expect(JSONPointer.tokens("a") == nil)
        #expect(JSONPointer.tokens("/~2") == nil)
        #expect(JSONPointer.tokens("/~") == nil)
        let doc = try json(#"{"a/b":1,"m~n":2}"#)
        #expect(try JSONPatch.apply(patch: json(#"[{"op":"replace","path":"/a~1b","value":3}]"#), to: doc)["a/b"] == 3)
        #expect(try patchError(#"[{"op":"remove","path":"/m~2n"}]"#, to: doc)?.at == "/0/path")
    }

    @Test("array indexes are plain decimals: no leading zero, sign or exponent")
    func indexes() {
        #expect(JSONPointer.index("0") == 0)
        #expect(JSONPointer.index("10") == 10)
        for bad in ["", "01", "-1", "+1", "1e0", " 1", "-", "١", "99999999999999999999"] {
            #expect(JSONPointer.index(bad) == nil, "\(bad)")
        }
    }

    @Test("refusals carry a stable code and point into the patch")
    func refusals() throws {
        let doc = try json(#"{"a":[1],"b":{"c":1}}"#)
        let cases: [(String, ErrorCode, String)] = [
            (#"{}"#, .badPatch, ""),
            (#"[1]"#, .badPatch, "/0"),
            (#"[{"path":"/a"}]"#, .badPatch, "/0/op"),
            (#"[{"op":"nope","path":"/a"}]"#, .badPatch, "/0/op"),
            (#"[{"op":"add","path":"a","value":1}]"#, .badPatch, "/0/path"),
            (#"[{"op":"add","path":"/a/0"}]"#, .badPatch, "/0/value"),
            (#"[{"op":"copy","path":"/x"}]"#, .badPatch, "/0/from"),
            (#"[{"op":"test","path":"/a/0","value":1},{"op":"add","path":"/a/2","value":1}]"#, .badPatch, "/1/path"),
            (#"[{"op":"remove","path":"/b/x"}]"#, .badPatch, "/0/path"),
            (#"[{"op":"remove","path":""}]"#, .badPatch, "/0/path"),
            (#"[{"op":"move","from":"/b","path":"/b/c/d"}]"#, .badPatch, "/0/path"),
            (#"[{"op":"move","from":"/z","path":"/y"}]"#, .badPatch, "/0/from"),
            (#"[{"op":"test","path":"/a","value":[2]}]"#, .patchTestFailed, "/0/value"),
            (#"[{"op":"test","path":"/b/c","value":true}]"#, .patchTestFailed, "/0/value"),
        ]
        for (patch, code, at) in cases {
            let error = try patchError(patch, to: doc)
            #expect(error?.code == code, "\(patch)")
            #expect(error?.at == at, "\(patch)")
        }
    }

    @Test("a failing operation leaves nothing half done")
    func allOrNothing() throws {
        let doc = try json(#"{"a":1}"#)
        let patch = try json(#"[{"op":"add","path":"/b","value":2},{"op":"test","path":"/a","value":2}]"#)
        #expect(throws: YaiaError.self) { try JSONPatch.apply(patch: patch, to: doc) }
        let original = try json(#"{"a":1}"#)
        #expect(doc == original)
    }

    @Test("what a patch does not name stays the same storage")
    func untouchedPartsAreShared() throws {
        let list = JSON.array(todoItems(10_000))
        let doc: JSON = ["items": list, "other": ["x": [1]], "title": "todo"]
        let out = try JSONPatch.apply([.replace(path: "/items/7/done", value: true)], to: doc)
        #expect(out["items"]?.arrayValue?[7]["done"] == true)
        #expect(list.arrayValue?[7]["done"] == false, "the document given is unchanged")
        #expect(try #require(out["other"]).sharesStorage(with: try #require(doc["other"])))
        #expect(try #require(out["items"]?.arrayValue?[8]).sharesStorage(with: try #require(list.arrayValue?[8])))
        // So the diff back costs one comparison per element, and finds the one change.
        #expect(JSONPatch.diff(from: doc, to: out) == [.replace(path: "/items/7/done", value: true)])
    }

    @Test("copies cannot grow a document past the node budget")
    func copiesAreBounded() throws {
        // Copying the root into one member then the other makes it grow as
        // Fibonacci's numbers: forty copies would make some 10^8 nodes.
        let doubling = "[" + (0..<40).map { i in #"{"op":"copy","from":"","path":"/\#(i % 2 == 0 ? "y" : "x")"}"# }.joined(separator: ",") + "]"
        let seed: JSON = ["x": .array(Array(repeating: 1, count: 10))]
        let error = try patchError(doubling, to: seed, limits: .init(nodes: 100_000))
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == "patch_nodes")
    }

    @Test("a patch cannot nest the document past the depth limit, nor hold too many operations")
    func depthAndCount() throws {
        let deep = String(repeating: "[", count: 20) + String(repeating: "]", count: 20)
        let error = try patchError(#"[{"op":"add","path":"/a/0","value":\#(deep)}]"#, to: ["a": [1]], limits: .init(depth: 20))
        #expect(error?.limit == "depth")
        #expect(error?.at == "/0/value")
        #expect(try patchError(#"[{"op":"add","path":"/a/0","value":\#(deep)}]"#, to: ["a": [1]], limits: .init(depth: 22)) == nil)
        let many = "[" + Array(repeating: #"{"op":"test","path":"","value":1}"#, count: 11).joined(separator: ",") + "]"
        #expect(try patchError(many, to: 1, limits: .init(operations: 10))?.limit == "patch_operations")
    }

    @Test("tests compare JSON values: numbers by value, not booleans with numbers")
    func testEquality() throws {
        #expect(try patchError(#"[{"op":"test","path":"/n","value":1.0}]"#, to: ["n": 1]) == nil)
        #expect(try patchError(#"[{"op":"test","path":"/n","value":true}]"#, to: ["n": 1])?.code == .patchTestFailed)
        #expect(try patchError(#"[{"op":"test","path":"/o","value":{"b":1,"a":2}}]"#, to: ["o": ["a": 2, "b": 1]]) == nil)
    }
}
