import Testing
import YaiaExamples
import YaiaKit
@testable import YaiaTesting

@Suite("JSONDiff: one line per differing leaf, located by JSON Pointer")
struct JSONDiffTests {
    @Test("equal values have no differences, numbers compare by value")
    func equal() {
        #expect(JSONDiff.lines(expected: ["a": [1, 2.0, "x"], "b": .null], actual: ["b": .null, "a": [1.0, 2, "x"]]).isEmpty)
    }

    @Test("nested members, missing and extra members")
    func members() {
        let expected: JSON = ["user": ["id": 1, "name": "Ann"], "gone": true]
        let actual: JSON = ["user": ["id": 2, "name": "Ann", "role": "admin"]]
        #expect(JSONDiff.lines(expected: expected, actual: actual) == [
            "/gone: expected true, got no member",
            "/user/id: expected 1, got 2",
            "/user/role: expected no member, got \"admin\"",
        ])
    }

    @Test("arrays element by element, then missing and extra elements")
    func arrays() {
        #expect(JSONDiff.lines(expected: [1, 2, 3], actual: [1, 5]) == ["/1: expected 2, got 5", "/2: expected 3, got no element"])
        #expect(JSONDiff.lines(expected: [], actual: [["a": 1]]) == ["/0: expected no element, got {\"a\":1}"])
    }

    @Test("a change of kind, and the root itself")
    func kinds() {
        #expect(JSONDiff.lines(expected: ["a": ["b": 1]], actual: ["a": [1]]) == ["/a: expected {\"b\":1}, got [1]"])
        #expect(JSONDiff.lines(expected: 1, actual: "1") == ["(root): expected 1, got \"1\""])
    }

    @Test("keys are escaped as JSON Pointer tokens")
    func escaping() {
        #expect(JSONDiff.lines(expected: ["a/b": ["~": 1]], actual: ["a/b": ["~": 2]]) == ["/a~1b/~0: expected 1, got 2"])
    }

    @Test("long diffs and long values are shortened")
    func limits() {
        let many = JSONDiff.lines(expected: .array((0..<100).map { JSON($0) }), actual: [])
        #expect(many.count == JSONDiff.maxLines + 1)
        #expect(many.last == "… and 60 more differences")
        let long = JSON(String(repeating: "x", count: 1000))
        let line = JSONDiff.lines(expected: long, actual: .null)[0]
        #expect(line.hasPrefix("(root): expected \"xxx"))
        #expect(line.hasSuffix("…, got null"))
        #expect(line.count < 300)
    }
}

@Suite("SceneTest odds and ends")
struct SceneTestMiscTests {
    @Test("a handle reads as its index, service and op")
    func handle() {
        var test = SceneTest(JobsState())
        test.send("run", payload: ["service": "timer", "op": "wait"])
        let wait = test.receiveEffect(service: "timer", op: "wait")
        #expect(wait.description == "#0 timer.wait")
        test.resolve(wait, with: .success(.null)) { $0.log = [["ok": true, "result": .null]] }
        test.finish()
    }

    @Test("exhaustivity can be relaxed part way through a test")
    func relaxLater() {
        var test = SceneTest(JobsState())
        test.send("run", payload: ["service": "timer", "op": "wait"])
        test.receiveEffect(service: "timer", op: "wait")
        test.exhaustivity = .off
        // The effect is left in flight, which exhaustivity off allows.
        test.finish()
        #expect(test.failures.isEmpty)
        #expect(test.pendingEffects.count == 1)
    }
}
