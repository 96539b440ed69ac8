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
}
