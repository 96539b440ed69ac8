import Testing
import YaiaCore
import YaiaKit

/// `Action(parsing:)` reads an action straight from its text; it must agree
/// with `Action(json: JSONParser.parse(...))` on every input, errors included.
/// So must `ActionText`, which checks the payload without building it (what
/// yaia_send does), and the action it builds from it afterwards.
@Suite struct ActionParsingTests {
    func both(_ bytes: [UInt8]) -> (Result<Action, YaiaError>, Result<Action, YaiaError>) {
        bytes.withUnsafeBufferPointer { buffer in
            let fast = Result { () throws(YaiaError) in try Action(parsing: buffer) }
            let text = Result { () throws(YaiaError) in try ActionText(parsing: buffer).action() }
            #expect(text == fast)
            return (fast, Result { () throws(YaiaError) in try Action(json: try JSONParser.parse(buffer)) })
        }
    }

    @Test(arguments: [
        #"{"type":"emailChanged","payload":"a@b.c"}"#,
        #" { "payload" : [1, {"x": null}] , "type" : "t" , "meta" : {"m": 1}, "error": true } "#,
        #"{"type":"a","type":"b"}"#,
        #"{"type":"a","error":false,"extra":{"deep":[[[]]]}}"#,
        #"{}"#, #"{"payload":1}"#, #"{"type":3}"#, #"{"type":"a","error":"yes"}"#,
        #"[]"#, #"3"#, #""text""#, #"null"#, "", " ",
        #"{"type":"a"} x"#, #"{"type":"a",}"#, #"{"type" "a"}"#, #"{"type":"a""#, #"{"type":"\ud800"}"#,
        #"{"type":"a","payload":01}"#, "{\"type\":\"a\u{1}\"}", #"{"type":"é","payload":"ü"}"#,
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        #"{"type":"a","payload":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}",
        #"{"type":"a","payload":1,"payload":{"b":[true,-0.5e3,"\u00e9"]}}"#, #"{"payload":  "x"  ,"type":"a"}"#,
        #"{"type":"a","payload":{"b":1,}}"#, #"{"type":"a","payload":"\x"}"#, #"{"type":"a","payload":tru}"#,
    ])
    func agreesWithTheTwoStepForm(_ text: String) {
        let (fast, plain) = both(Array(text.utf8))
        #expect(fast == plain)
    }

    @Test func agreesOnInvalidUTF8() {
        let (fast, plain) = both([0x7B, 0x22, 0x74, 0x79, 0x70, 0x65, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])
        #expect(fast == plain)
        if case .failure(let error) = fast { #expect(error.code == .invalidJSON) } else { Issue.record("accepted invalid UTF-8") }
    }

    @Test(.enabled(if: Conformance.isAvailable, "JSONTestSuite folder not found"))
    func agreesOnEveryConformanceFile() throws {
        for name in Conformance.files("") {
            let (fast, plain) = both(try Conformance.bytes(name))
            #expect(fast == plain, "\(name)")
        }
    }
}
