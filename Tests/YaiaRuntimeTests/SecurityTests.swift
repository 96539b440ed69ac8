import Foundation
import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
import YaiaRuntime

/// A fresh directory of the test's own, removed at the end.
private func withDirectory(_ body: (String) throws -> Void) throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("yaia-security-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try body(dir)
}

private func config(_ text: String) throws -> Runtime {
    try Runtime(catalog: Catalog(SceneCatalog(Examples.sceneTypes)), config: try json(text))
}

private func configError(_ text: String) -> YaiaError? {
    yaiaError { () throws(YaiaError) in
        try Runtime(catalog: Catalog(SceneCatalog(Examples.sceneTypes)), config: try JSONParser.parse(text))
    }
}

@Suite("Privileged requests")
struct PrivilegeTests {
    static let privileged: [String] = [
        #"{"op":"bind","service":"c","library":"libc.so.6","ops":{"system":"int32(string)"}}"#,
        #"{"op":"load_plugin","path":"/tmp/x.so"}"#,
        #"{"op":"perform","effect":{"service":"c","op":"system","args":["true"]}}"#,
        #"{"op":"journal","start":"../x"}"#,
        #"{"op":"journal","stop":true}"#,
        #"{"op":"replay","journal":"/etc/passwd"}"#,
        #"{"op":"snapshot"}"#,
        #"{"op":"restore","snapshot":{}}"#,
        #"{"op":"rewind","to":0}"#,
    ]

    @Test("refused by default with not_permitted at /op, and nothing changes", arguments: privileged)
    func refused(request: String) throws {
        let rt = makeRuntime()
        let opened = rt.run(#"{"op":"open","scene":"example/login"}"#)
        let error = try #require(envelopeError(rt.run(request)))
        #expect(error["code"] == "not_permitted")
        #expect(error["at"] == "/op")
        #expect(error["message"]?.stringValue?.contains("allow") == true)
        #expect(rt.run(#"{"op":"services"}"#)["services"] == [])
        #expect(rt.run(#"{"op":"scenes"}"#)["scenes"]?.arrayValue?.count == 1)
        #expect(rt.run(#"{"op":"state","scene":1}"#)["viewModel"] == opened["viewModel"])
    }

    @Test("ordinary ops need no grant")
    func ordinary() {
        let rt = makeRuntime()
        for request in [#"{"op":"open","scene":"example/login"}"#, #"{"op":"send","scene":1,"action":{"type":"emailChanged","payload":"a@b.c"}}"#,
                        #"{"op":"state","scene":1}"#, #"{"op":"scenes"}"#, #"{"op":"services"}"#, #"{"op":"inspect","on":false}"#,
                        #"{"op":"limits"}"#, #"{"op":"close","scene":1}"#] {
            #expect(rt.run(request)["ok"] == true, "\(request)")
        }
    }

    @Test("a granted op runs; the others stay refused")
    func granted() throws {
        let rt = try config(#"{"allow":{"ops":["snapshot"]}}"#)
        #expect(rt.run(#"{"op":"snapshot"}"#)["ok"] == true)
        #expect(rt.run(#"{"op":"rewind","to":0}"#)["error"]?["code"] == "not_permitted")
    }

    @Test("the config itself may bind, whatever it allows requests")
    func configIsTrusted() throws {
        let rt = try config(#"{"bind":[{"service":"m","library":"libm.so.6","ops":{"floor":"double(double)"}}]}"#)
        #expect(rt.run(#"{"op":"services"}"#)["services"]?.arrayValue?.count == 1)
        #expect(rt.run(#"{"op":"bind","service":"n","library":"libm.so.6","ops":{"ceil":"double(double)"}}"#)["error"]?["code"] == "not_permitted")
    }

    @Test("allow is checked like the rest of the config", arguments: [
        (#"{"allow":{"ops":["bnd"]}}"#, "/allow/ops/0", "did you mean \"bind\""),
        (#"{"allow":{"ops":["open"]}}"#, "/allow/ops/0", "always allowed"),
        (#"{"allow":{"ops":"some"}}"#, "/allow/ops", "\"all\""),
        (#"{"allow":{"op":[]}}"#, "/allow/op", "did you mean \"ops\""),
        (#"{"allow":{"files":["/nonexistent-yaia-dir"]}}"#, "/allow/files/0", "not an existing directory"),
        (#"{"allow":[]}"#, "/allow", "must be an object"),
    ])
    func badAllow(text: String, at: String, says: String) throws {
        let error = try #require(configError(text))
        #expect(error.code == .badConfig)
        #expect(error.at == at)
        #expect(error.message.contains(says), "\(error.message)")
    }
}

@Suite("Files named by requests")
struct ConfinementTests {
    @Test("a journal starts only inside a granted directory")
    func journalConfined() throws {
        try withDirectory { dir in
            try withDirectory { other in
                let rt = try config(#"{"allow":{"ops":["journal"],"files":["\#(dir)"]}}"#)
                for path in ["\(other)/j.jsonl", "\(dir)/../j.jsonl", "/etc/yaia.jsonl", "j.jsonl", "\(dir)", "\(dir)/"] {
                    let error = rt.run(#"{"op":"journal","start":"\#(path)"}"#)["error"]
                    #expect(error?["code"] == "not_permitted", "\(path)")
                    #expect(error?["at"] == "/start")
                }
                #expect(!FileManager.default.fileExists(atPath: "\(other)/j.jsonl"))
                #expect(rt.run(#"{"op":"journal","start":"\#(dir)/j.jsonl"}"#)["ok"] == true)
                #expect(rt.run(#"{"op":"journal","stop":true}"#)["ok"] == true)
                #expect(FileManager.default.fileExists(atPath: "\(dir)/j.jsonl"))
            }
        }
    }

    @Test("a symbolic link cannot lead out of a granted directory")
    func symlinkOut() throws {
        try withDirectory { dir in
            try withDirectory { other in
                try "keep".write(toFile: "\(other)/target", atomically: true, encoding: .utf8)
                try FileManager.default.createSymbolicLink(atPath: "\(dir)/link", withDestinationPath: "\(other)/target")
                try FileManager.default.createSymbolicLink(atPath: "\(dir)/sub", withDestinationPath: other)
                let rt = try config(#"{"allow":{"ops":["journal","replay"],"files":["\#(dir)"]}}"#)
                #expect(rt.run(#"{"op":"journal","start":"\#(dir)/link"}"#)["error"]?["code"] == "not_permitted")
                #expect(rt.run(#"{"op":"journal","start":"\#(dir)/sub/j.jsonl"}"#)["error"]?["code"] == "not_permitted")
                #expect(rt.run(#"{"op":"replay","journal":"\#(dir)/link"}"#)["error"]?["code"] == "not_permitted")
                #expect(try String(contentsOfFile: "\(other)/target", encoding: .utf8) == "keep")
            }
        }
    }

    @Test("without granted directories no request names a file")
    func noDirectories() throws {
        let rt = try config(#"{"allow":{"ops":"all"}}"#)
        let error = rt.run(#"{"op":"journal","start":"/tmp/yaia-never.jsonl"}"#)["error"]
        #expect(error?["code"] == "not_permitted")
        #expect(error?["message"]?.stringValue?.contains("none are granted") == true)
        #expect(rt.run(#"{"op":"load_plugin","path":"/tmp/yaia-never.so"}"#)["error"]?["code"] == "not_permitted")
    }
}

@Suite("Limits")
struct LimitTests {
    @Test("a request over request_bytes is refused; the runtime stays usable")
    func requestBytes() throws {
        let rt = try config(#"{"limits":{"request_bytes":100}}"#)
        let big = #"{"op":"open","scene":"example/login","tag":""# + String(repeating: "x", count: 100) + #""}"#
        let error = try #require(envelopeError(rt.run(big)))
        #expect(error["code"] == "limit_exceeded")
        #expect(error["limit"] == "request_bytes")
        #expect(rt.run(#"{"op":"open","scene":"example/login"}"#)["ok"] == true)
    }

    @Test("nesting over depth, and the 8 levels a text may wrap around it, is refused")
    func depth() throws {
        let rt = try config(#"{"limits":{"depth":3}}"#)
        func tag(_ levels: Int) -> String { String(repeating: "[", count: levels) + "1" + String(repeating: "]", count: levels) }
        // The request object is a level: 1 + 10 = 3 + 8.
        #expect(rt.run(#"{"op":"open","scene":"example/login","tag":\#(tag(10))}"#)["ok"] == true)
        let error = rt.run(#"{"op":"open","scene":"example/login","tag":\#(tag(11))}"#)["error"]
        #expect(error?["code"] == "limit_exceeded")
        #expect(error?["limit"] == "depth")
    }

    @Test("open scenes stop at the scenes limit, and free up on close")
    func scenes() throws {
        let rt = try config(#"{"limits":{"scenes":2}}"#)
        #expect(rt.run(#"{"op":"open","scene":"example/login"}"#)["ok"] == true)
        #expect(rt.run(#"{"op":"start","scene":"example/login"}"#)["ok"] == true)
        let error = rt.run(#"{"op":"open","scene":"example/login"}"#)["error"]
        #expect(error?["code"] == "limit_exceeded")
        #expect(error?["limit"] == "scenes")
        #expect(rt.run(#"{"op":"start","scene":"example/login"}"#)["error"]?["limit"] == "scenes")
        #expect(rt.run(#"{"op":"close","scene":1}"#)["ok"] == true)
        #expect(rt.run(#"{"op":"open","scene":"example/login"}"#)["ok"] == true)
        #expect(rt.run(#"{"op":"limits"}"#)["usage"]?["scenes"] == 2)
    }

    @Test("beyond the events limit the oldest are dropped, counted and reported")
    func events() throws {
        let rt = try config(#"{"limits":{"events":2},"inspect":true}"#)
        _ = rt.run(#"{"op":"open","scene":"example/login"}"#)
        for i in 0..<5 {
            #expect(rt.run(#"{"op":"send","scene":1,"action":{"type":"emailChanged","payload":"\#(i)"}}"#)["ok"] == true)
        }
        let usage = rt.run(#"{"op":"limits"}"#)["usage"]
        #expect(usage?["events"] == 2)
        #expect(usage?["dropped"] == 3)
        let first = try #require(rt.receive(timeout: 0))
        #expect(first["dropped"] == 3)
        #expect(first["action"]?["payload"] == "3")
        let second = try #require(rt.receive(timeout: 0))
        #expect(second["dropped"] == nil)
        #expect(rt.receive(timeout: 0) == nil)
    }

    @Test("limits are checked like the rest of the config", arguments: [
        (#"{"limits":{"event":5}}"#, "/limits/event", "did you mean \"events\""),
        (#"{"limits":{"depth":0}}"#, "/limits/depth", "from 1 to 512"),
        (#"{"limits":{"reentry":1.5}}"#, "/limits/reentry", "whole number"),
    ])
    func badLimits(text: String, at: String, says: String) throws {
        let error = try #require(configError(text))
        #expect(error.code == .badConfig)
        #expect(error.at == at)
        #expect(error.message.contains(says), "\(error.message)")
    }

    @Test("the limits op reports limits, grants and usage")
    func report() throws {
        let rt = try config(#"{"limits":{"events":7},"allow":{"ops":["snapshot"]}}"#)
        let r = rt.run(#"{"op":"limits"}"#)
        #expect(r["limits"]?["events"] == 7)
        #expect(r["limits"]?["request_bytes"] == .int(Int64(Limits().requestBytes)))
        #expect(r["allow"]?["ops"] == ["snapshot"])
        #expect(r["usage"] == ["dropped": 0, "events": 0, "logic_rules": 0, "scenes": 0])
    }
}

@Suite("Names people type")
struct SuggestionTests {
    @Test("an unknown config key suggests the nearest")
    func configKey() throws {
        let error = try #require(configError(#"{"plugns":[]}"#))
        #expect(error.code == .badConfig)
        #expect(error.message.contains("did you mean \"plugins\""))
    }

    @Test("an unknown scene suggests the nearest")
    func sceneName() throws {
        let rt = makeRuntime()
        let error = rt.run(#"{"op":"open","scene":"example/logn"}"#)["error"]
        #expect(error?["code"] == "unknown_scene")
        #expect(error?["message"]?.stringValue?.contains("did you mean \"example/login\"") == true)
        #expect(rt.run(#"{"op":"start","scene":"exmple/login"}"#)["error"]?["message"]?.stringValue?.contains("example/login") == true)
    }

    @Test("an unknown op suggests the nearest")
    func op() {
        let message = makeRuntime().run(#"{"op":"sned"}"#)["error"]?["message"]?.stringValue
        #expect(message?.contains("did you mean \"send\"") == true)
    }

    @Test("far-off names suggest nothing", arguments: ["zzzzzz", "", String(repeating: "a", count: 1000)])
    func farOff(word: String) {
        #expect(Suggestion.nearest(word, among: ["plugins", "scenes"]) == nil)
    }
}
