import Testing
import YaiaExamples
import YaiaKit
import YaiaRuntime

/// The logic request's rule cache (`Runtime.execute(_:into:)`) is kept for
/// speed only: it must answer every request exactly as the general path
/// (`execute` to a tree, then written) does, the first time a rule is seen
/// and every time after, failures included.
@Suite struct LogicRequestPathTests {
    static let deep: String = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
    static let deepRule: String = #"{"op":"logic","rule":"# + deep + "}"
    static let deepData: String = #"{"op":"logic","rule":1,"data":"# + deep + "}"

    @Test(arguments: [String](arrayLiteral:
        #"{"op":"logic","rule":{"+":[1,2]}}"#,
        #"{"op":"logic","rule":{"if":[{"<":[{"var":"n"},10]},"small","big"]},"data":{"n":3}}"#,
        #"{"op":"logic","rule":{"if":[{"<":[{"var":"n"},10]},"small","big"]},"data":{"n":30}}"#,
        #" { "data" : {"a": [1, 2]} , "rule" : {"map":[{"var":"a"},{"*":[{"var":""},2]}]}, "op" : "logic" } "#,
        #"{"op":"logic","rule":{"var":"x"},"data":{"x":"é\n"}}"#,
        #"{"op":"logic","rule":{"cat":["a",{"var":"b"}]},"data":{"b":1.5e3}}"#,
        #"{"op":"logic","rule":{"var":"x"},"data":null}"#,
        #"{"op":"logic","rule":3}"#,
        // Failures: the rule, the data, the request's shape.
        #"{"op":"logic","rule":{"nope":[1]}}"#,
        #"{"op":"logic","rule":{"/":[1,0]}}"#,
        #"{"op":"logic","rule":{"+":[1,2]},"data":{"x":01}}"#,
        #"{"op":"logic","rule":{"+":[1,2]},"data":}"#,
        #"{"op":"logic","rule":{"+":[1,2]},"tag":7}"#,
        #"{"op":"logic","rule":{"+":[1,2]},"rule":{"+":[3,4]}}"#,
        #"{"op":"logic","op":"logic","rule":1}"#,
        #"{"op":"logic","\u0072ule":{"+":[1,2]}}"#,
        #"{"op":"logic","rule":{"+":[1,2]}"#,
        #"{"op":"logic","rule":{"+":[1,2]}} x"#,
        #"{"op":"logic"}"#,
        #"{"op":"logix","rule":1}"#,
        LogicRequestPathTests.deepRule, LogicRequestPathTests.deepData,
    ))
    func answersAsTheGeneralPath(_ text: String) {
        let runtime = Runtime(catalog: Catalog(SceneCatalog(Examples.sceneTypes)))
        defer { runtime.shutDown() }
        let bytes = Array(text.utf8)
        var writer = JSONWriter()
        let general = bytes.withUnsafeBufferPointer { b in
            writer.write(runtime.execute(b))
            return writer.withBytes { String(decoding: $0, as: UTF8.self) }
        }
        // The first time compiles the rule into the cache; later ones reuse it.
        for round in 0..<3 {
            writer.reset()
            bytes.withUnsafeBufferPointer { runtime.execute($0, into: &writer) }
            #expect(writer.withBytes { String(decoding: $0, as: UTF8.self) } == general, "round \(round)")
        }
    }

    /// A rule the cache holds is trusted only for the same text: another
    /// text with the same hash, or the same rule written otherwise, is
    /// compiled afresh.
    @Test func aCachedRuleServesOnlyItsOwnText() {
        let runtime = Runtime(catalog: Catalog(SceneCatalog(Examples.sceneTypes)))
        defer { runtime.shutDown() }
        func fast(_ text: String) -> String {
            var writer = JSONWriter()
            Array(text.utf8).withUnsafeBufferPointer { runtime.execute($0, into: &writer) }
            return writer.withBytes { String(decoding: $0, as: UTF8.self) }
        }
        #expect(fast(#"{"op":"logic","rule":{"+":[1,2]}}"#) == #"{"ok":true,"result":3}"#)
        #expect(fast(#"{"op":"logic","rule":{"+":[1,3]}}"#) == #"{"ok":true,"result":4}"#)
        #expect(fast(#"{"op":"logic","rule":{"+":[1, 2]}}"#) == #"{"ok":true,"result":3}"#)
        #expect(fast(#"{"op":"logic","rule":{"+":[1,2]}}"#) == #"{"ok":true,"result":3}"#)
    }
}
