import Testing
import YaiaCore
import YaiaKit

/// `Action(parsing:)` reads an action straight from its text; it must agree
/// with `Action(json: JSONParser.parse(...))` on every input, errors included.
@Suite struct ActionParsingTests {
    func both(_ bytes: [UInt8]) -> (Result<Action, YaiaError>, Result<Action, YaiaError>) {
        bytes.withUnsafeBufferPointer { buffer in
            (Result { () throws(YaiaError) in try Action(parsing: buffer) },
             Result { () throws(YaiaError) in try Action(json: try JSONParser.parse(buffer)) })
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

    /// An action whose payload (or an unknown member) is `value`, read
    /// skipping the payload and building it: the same errors, and once built
    /// the same action.
    func skippingAgrees(_ value: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) -> Bool {
        let texts = [Array(#"{"type":"t","payload":"#.utf8) + value + [0x7D],
                     Array(#"{"x":"#.utf8) + value + Array(#","type":"t"}"#.utf8)]
        for text in texts {
            let agrees = text.withUnsafeBufferPointer { buffer -> Bool in
                let built = Result { () throws(YaiaError) in try Action(parsing: buffer, maxDepth: maxDepth) }
                let skipped = Result { () throws(YaiaError) in try Action(parsing: buffer, maxDepth: maxDepth, skippingPayload: true) }
                switch (built, skipped) {
                case (.failure(let a), .failure(let b)): return a == b
                case (.success(let a), .success(let b)):
                    guard !a.payloadSkipped, b.payloadSkipped == (a.payload != nil), b.payload == nil || !b.payloadSkipped,
                          let full = try? b.parsingPayload(from: buffer) else { return false }
                    return full == a
                default: return false
                }
            }
            if !agrees { return false }
        }
        return true
    }

    @Test(arguments: [
        #"1"#, #"-0.5e3"#, #""a""#, #""\u00e9\n""#, #"[1,[2,{"a":[]}]]"#, #"{"b":1,"a":{"c":null},"b":2}"#, #"true"#,
        #"{"a":1,}"#, #"[1,]"#, #"[1 2]"#, #"{"a" 1}"#, #"{1:2}"#, #""\ud800""#, #"01"#, #"tru"#, #""a"#, "\"\u{1}\"", #"[}"#,
        "", "  ", #"{"a":"é"}"#,
    ])
    func skippingAPayloadFailsExactlyAsBuildingIt(_ value: String) {
        #expect(skippingAgrees(Array(value.utf8)))
    }

    @Test func skippingAPayloadKeepsTheDepthLimit() {
        for depth in 1...6 {
            let nested = Array(String(repeating: "[", count: depth).utf8) + Array(String(repeating: "]", count: depth).utf8)
            for limit in 1...6 { #expect(skippingAgrees(nested, maxDepth: limit), "depth \(depth), limit \(limit)") }
        }
    }

    @Test func aSkippedPayloadIsBuiltFromItsText() throws {
        let text = Array(#"{"meta":{"m":1},"payload":{"service":"echo","args":[1]},"type":"run"}"#.utf8)
        try text.withUnsafeBufferPointer { buffer in
            let skipped = try Action(parsing: buffer, skippingPayload: true)
            #expect(skipped.payloadSkipped && skipped.payload == nil && skipped.type == "run" && skipped.meta == ["m": 1])
            let full = try skipped.parsingPayload(from: buffer)
            #expect(!full.payloadSkipped && full.payload == ["args": [1], "service": "echo"])
            // Without a payload there is nothing to skip.
            let bare = try Array(#"{"type":"t"}"#.utf8).withUnsafeBufferPointer { try Action(parsing: $0, skippingPayload: true) }
            #expect(!bare.payloadSkipped && bare == Action("t"))
        }
    }

    @Test(.enabled(if: Conformance.isAvailable, "JSONTestSuite folder not found"))
    func skippingAgreesOnEveryConformanceFile() throws {
        for name in Conformance.files("") {
            #expect(skippingAgrees(try Conformance.bytes(name)), "\(name)")
        }
    }
}
