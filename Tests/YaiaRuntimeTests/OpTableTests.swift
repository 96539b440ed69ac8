import Foundation
import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
@testable import YaiaRuntime

/// The repository's root, from this file's place in it.
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

private func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
}

/// The names in `{"op": NAME` (with or without a space), as the header and the docs write requests;
/// not a JSON Patch operation's (`{"op":"replace","path":...}`), which is no request.
private func opsNamed(in text: String) throws -> Set<String> {
    let pattern = try NSRegularExpression(pattern: #"\{"op":\s*"(?!(?:add|remove|replace|move|copy|test)")([a-z_]+)""#)
    let range = NSRange(text.startIndex..., in: text)
    return Set(pattern.matches(in: text, range: range).compactMap { match in
        Range(match.range(at: 1), in: text).map { String(text[$0]) }
    })
}

@Suite struct OpTableTests {
    let names = Op.all.map(\.name)

    @Test func everyOpIsDeclaredOnce() {
        #expect(Set(names).count == names.count, "duplicates: \(names.filter { n in names.filter { $0 == n }.count > 1 })")
        #expect(Op.named.count == names.count)
        for op in Op.all { #expect(Op.named[op.name]?.name == op.name) }
    }

    @Test func theHeaderAndTheDocsListExactlyTheTable() throws {
        let table = Set(names)
        let header = try opsNamed(in: text("Include/yaia.h"))
        #expect(table.subtracting(header).isEmpty, "ops missing from Include/yaia.h: \(table.subtracting(header).sorted())")
        #expect(header.subtracting(table).isEmpty, "Include/yaia.h names ops the table lacks: \(header.subtracting(table).sorted())")
        let docs = try opsNamed(in: text("docs/abi.md"))
        #expect(table.subtracting(docs).isEmpty, "ops missing from docs/abi.md: \(table.subtracting(docs).sorted())")
        #expect(docs.subtracting(table).isEmpty, "docs/abi.md names ops the table lacks: \(docs.subtracting(table).sorted())")
    }

    /// The header's SECURITY section lists the privileged ops between dashes.
    @Test func theHeaderListsThePrivilegedOps() throws {
        let header = try text("Include/yaia.h")
        let start = try #require(header.range(of: "the privileged ops --"))
        let end = try #require(header.range(of: "-- are", range: start.upperBound..<header.endIndex))
        let listed = Set(header[start.upperBound..<end.lowerBound].replacingOccurrences(of: "**", with: "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(listed == Grants.privilegedOps)
        #expect(Grants.privilegedOps == Set(Op.all.filter(\.privileged).map(\.name)))
        #expect(Grants.all.ops == Grants.privilegedOps)
    }

    @Test func theFuzzDictionaryNamesEveryOp() throws {
        let entries = Set(try text("Tests/fuzz/yaia.dict").split(separator: "\n").map(String.init))
        let missing = names.filter { !entries.contains("\"\($0)\"") }
        #expect(missing.isEmpty, "ops missing from Tests/fuzz/yaia.dict: \(missing)")
    }

    /// Each kind of journal line is replayed by one op, and every op that
    /// changes state writes a kind some op replays.
    @Test func journaledOpsReplay() {
        let replayed = Op.all.filter { if case .line? = $0.journal { true } else { false } }
        #expect(Set(replayed.compactMap(\.journalKind)).count == replayed.count)
        #expect(Set(Op.replaying.keys) == Set(replayed.compactMap(\.journalKind)))
        for op in Op.all where op.journal != nil {
            #expect(Op.replaying[op.journalKind ?? ""] != nil, "\(op.name) writes lines replay cannot apply")
        }
        // What only reads is not journaled.
        for name in ["state", "scenes", "schema", "limits", "services", "flow", "logic", "snapshot"] {
            #expect(Op.named[name]?.journal == nil, "\(name) should not be journaled")
        }
        #expect(Op.resolve.journalKind == "outcome")
        #expect(Op.rewind.journalKind == Op.restore.name)
    }

    @Test func anUnknownOpIsRefusedWithTheNearestName() throws {
        let runtime = Runtime(catalog: Catalog(SceneCatalog(Examples.sceneTypes)))
        defer { runtime.shutDown() }
        let typo = runtime.execute(try json(#"{"op":"snapshto","tag":7}"#))
        #expect(typo["error"]?["code"] == "unknown_op")
        #expect(typo["error"]?["message"] == #"unknown op "snapshto"; did you mean "snapshot"?"#)
        #expect(typo["error"]?["at"] == "/op")
        #expect(typo["tag"] == 7)
        let far = runtime.execute(try json(#"{"op":"xyzzy-plugh"}"#))
        #expect(far["error"]?["message"] == #"unknown op "xyzzy-plugh""#)
        // A privileged op, ungranted, is refused before its handler reads anything.
        let refused = runtime.execute(try json(#"{"op":"snapshot"}"#))
        #expect(refused["error"]?["code"] == "not_permitted")
    }

    /// The plain logic request's fast path knows the op by the table's name, and only it.
    @Test func theLogicFastPathTakesOnlyTheLogicOp() {
        let runtime = Runtime(catalog: Catalog(SceneCatalog(Examples.sceneTypes)))
        defer { runtime.shutDown() }
        func fast(_ text: String) -> String? {
            var writer = JSONWriter()
            let bytes = Array(text.utf8)
            let taken = bytes.withUnsafeBufferPointer { runtime.fastLogic($0, into: &writer) }
            return taken ? writer.withBytes { String(decoding: $0, as: UTF8.self) } : nil
        }
        #expect(fast(#"{"op":"logic","rule":{"+":[1,2]}}"#) == #"{"ok":true,"result":3}"#)
        #expect(fast(#"{"rule":{"+":[1,2]}, "op": "logic"}"#) == #"{"ok":true,"result":3}"#)
        for other in [#""logix""#, #""logics""#, #""logi""#, #"logic"#, #""\u006cogic""#, #""""#, "1"] {
            #expect(fast(#"{"op":"# + other + #","rule":1}"#) == nil, "\(other)")
        }
    }
}
