import Foundation
import Testing
import YaiaCore
import YaiaKit
@testable import YaiaRuntime

/// The journal's machinery below the runtime: the text kept for seq and
/// time between lines, and what a closed journal does with a late input.
@Suite struct JournalFileTests {
    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("yaia-\(UUID().uuidString)-\(name)").path
    }

    func text(_ digits: JournalFile.Formatter.Digits) -> String {
        var out = [UInt8](repeating: 0, count: 24)
        let count = out.withUnsafeMutableBufferPointer { b in b.baseAddress.map { digits.copy(to: $0) } ?? 0 }
        return String(decoding: out.prefix(count), as: UTF8.self)
    }

    @Test func digitsCountUpAcrossEveryCarry() {
        var digits = JournalFile.Formatter.Digits()
        digits.set(0)
        for n in 1...100_001 {
            digits.increment()
            if n < 1_000 || n % 997 == 0 || [9_999, 10_000, 99_999, 100_000, 100_001].contains(n) {
                #expect(text(digits) == String(n))
            }
        }
        #expect(text(digits) == "100001")
        for value: Int64 in [0, 7, 1_795_284_198_968, Int64.max, -42] {
            digits.set(value)
            #expect(text(digits) == String(value))
        }
    }

    /// A send that fetched the journal before it was stopped, and reached it
    /// after, records nothing: the file ends with what stop wrote.
    @Test func aClosedJournalRecordsNothing() throws {
        let path = temporaryPath("closed.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let journal = try Journal(path: path)
        journal.lockInput()
        journal.begin(snapshot: ["scenes": []])
        journal.record(.close(scene: 1), digest: nil)
        #expect(journal.close())
        let written = try String(contentsOfFile: path, encoding: .utf8)
        journal.recordSend(.scene(1), .value(Action("emailChanged", payload: "a@b.c")), digest: 7, time: 0)
        journal.record(.close(scene: 2), digest: nil)
        #expect(journal.flush())
        journal.unlockInput()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == written)
        #expect(written.split(separator: "\n").count == 2)
    }

    /// A send's action is recorded as its caller wrote it, but on one line:
    /// its raw line breaks (white space between tokens), wherever they sit,
    /// become spaces.
    @Test func anActionsLineBreaksBecomeSpaces() throws {
        let path = temporaryPath("breaks.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let actions = ["{\"type\":\"t\"}", "{\"type\":\n\"t\"}", "{\r\n\"type\"\n:\"t\",\"payload\":[1,\n2]\r}",
                       "{\"payload\":\"a long payload, past a word or two\",\"type\":\"t\"\n}"]
        let journal = try Journal(path: path)
        journal.lockInput()
        journal.begin(snapshot: ["scenes": []])
        for action in actions {
            try Array(action.utf8).withUnsafeBufferPointer { text in
                journal.recordSend(.scene(1), .text(try ActionText(parsing: text)), digest: nil, time: 0)
            }
        }
        #expect(journal.close())
        journal.unlockInput()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == actions.count + 2 && lines.last == "")
        for (line, action) in zip(lines.dropFirst(), actions) {
            let spaced = action.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
            #expect(line.hasPrefix("{\"action\":" + spaced + ",\"kind\":\"send\""))
        }
    }
}
