import Testing
import YaiaCore
import YaiaKit

@Suite struct ChildDocumentTests {
    @Test func malformedChildrenAreReportedAllAtOnceWithPointers() throws {
        let document: JSON = [
            "yaia": 1, "scene": "t/list", "state": ["items": [], "rows": 0], "actions": ["opened": ["set": ["rows": 1]]],
            "children": [
                "rows": ["scene": "t/row", "kind": "keyed"],
                "header": ["scene": "t/nowhere", "kind": "one", "from": ["var": "state.items"], "key": 1],
                "footer": ["scene": "t/row", "kind": "sometimes", "intercept": true, "outputs": ["open": "opend"], "colour": "red"],
                "bad/name": ["kind": "optional", "from": ["var": "state.nothing"], "argsAction": "setArgs"],
            ],
        ]
        let problems = SceneDocument.check(document, catalog: ["t/row"]).map { "\($0.code) \($0.at)" }
        #expect(problems == [
            "bad_value /children/bad~1name",
            "missing_member /children/bad~1name",
            "unknown_field /children/bad~1name/from",
            "unknown_member /children/footer/colour",
            "bad_value /children/footer/kind",
            "unknown_action /children/footer/outputs/open",
            "unknown_action /children/footer/intercept",
            "unknown_scene /children/header/scene",
            "unknown_member /children/header/from",
            "unknown_member /children/header/key",
            "bad_value /children/rows",
            "missing_member /children/rows",
        ])
    }

    @Test func aDocumentsChildrenFollowItsState() throws {
        let scene = try DocumentScene([
            "yaia": 1, "scene": "t/list", "state": ["items": [["id": 1, "t": "a"], ["id": "b", "t": "b"]], "open": .null],
            "actions": ["x": ["set": ["open": 1]]],
            "children": [
                "rows": ["scene": "t/row", "kind": "keyed", "from": ["var": "state.items"], "args": ["title": ["var": "item.t"]]],
                "detail": ["scene": "t/row", "kind": "optional", "from": ["var": "state.open"], "args": ["id": ["var": "item"]]],
            ],
        ])
        var value = try scene.open()
        #expect(value.childSlots.map(\.name) == ["detail", "rows"])
        #expect(try value.children() == [Child.keyed("rows", key: 1, args: ["title": "a"]), Child.keyed("rows", key: "b", args: ["title": "b"])])
        _ = try value.reduce(Action("x"))
        #expect(try value.children().first == Child.one("detail", args: ["id": 1]))
    }

    /// A list of rows beside a query that its slot does not read, and a
    /// label its rows' args read from the state.
    static let list: JSON = [
        "yaia": 1, "scene": "t/list", "state": ["items": [["id": 1, "t": "a"], ["id": 2, "t": "b"]], "query": "", "label": "x"],
        "actions": [
            "query": ["payload": "string", "set": ["query": ["var": "payload"]]],
            "label": ["payload": "string", "set": ["label": ["var": "payload"]]],
            "add": ["payload": ["id": "integer", "t": "string"], "set": ["items": ["merge": [["var": "state.items"], [["var": "payload"]]]]]],
        ],
        "children": [
            "rows": ["scene": "t/row", "kind": "keyed", "from": ["var": "state.items"],
                     "args": ["title": ["cat": [["var": "item.t"], ["var": "state.label"]]]]],
        ],
    ]

    static func sameStorage(_ a: [Child], _ b: [Child]) -> Bool {
        a.withUnsafeBufferPointer { p in b.withUnsafeBufferPointer { q in p.baseAddress == q.baseAddress } }
    }

    @Test func childrenAreKeptWhileWhatTheirSlotsReadIsUnchanged() throws {
        let scene = try DocumentScene(Self.list)
        var value = try scene.open()
        let first = try value.children()
        _ = try value.reduce(Action("query", payload: "b"))
        // The same array: the runtime's comparison with the last list is then immediate.
        #expect(Self.sameStorage(try value.children(), first))
        for (type, payload) in [("label", JSON.string("y")), ("add", ["id": 3, "t": "c"]), ("query", "a")] {
            _ = try value.reduce(Action(type, payload: payload))
            // Whatever was kept or evaluated again, the children are those of the state afresh.
            #expect(try value.children() == (try scene.restore(state: value.json).children()))
        }
        #expect(try value.children().map(\.args) == [["title": "ay"], ["title": "by"], ["title": "cy"]])
    }

    @Test func childrenOfASlotThatReadsWhatCannotBeNamedAreEvaluatedEveryTime() throws {
        guard case .object(var document) = Self.list else { return }
        // It names "label", and reads the list that "label" names.
        document["children"] = ["rows": ["scene": "t/row", "kind": "keyed", "from": ["var": ["cat": ["state.", ["var": "state.label"]]]]]]
        document["state"] = ["items": [["id": 1, "t": "a"], ["id": 2, "t": "b"]], "query": "", "label": "items"]
        let scene = try DocumentScene(.object(document))
        var value = try scene.open()
        _ = try value.reduce(Action("add", payload: ["id": 3, "t": "c"]))
        #expect(try value.children().map(\.key) == [1, 2, 3])
    }
}
