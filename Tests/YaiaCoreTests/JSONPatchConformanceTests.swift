import Foundation
import Testing
import YaiaCore
import YaiaKit

/// The json-patch-tests project's cases: records of `doc`, `patch` and
/// either `expected` or `error`; disabled ones and bare comments are skipped.
enum JSONPatchConformance {
    /// YAIA_JSON_PATCH_TESTS, else ../shared/conformance/json-patch next to the package root.
    static let directory: URL? = {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["YAIA_JSON_PATCH_TESTS"], !env.isEmpty {
            return fm.fileExists(atPath: env) ? URL(fileURLWithPath: env, isDirectory: true) : nil
        }
        // #filePath is <root>/Tests/YaiaCoreTests/JSONPatchConformanceTests.swift.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let dir = root.deletingLastPathComponent().appendingPathComponent("shared/conformance/json-patch", isDirectory: true)
        return fm.fileExists(atPath: dir.appendingPathComponent("tests.json").path) ? dir : nil
    }()

    static var isAvailable: Bool { directory != nil }
    static let files = ["tests.json", "spec_tests.json"]

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var doc: JSON
        var patch: JSON
        /// Nil: the patch must be refused.
        var expected: JSON?
        var testDescription: String { name }
    }

    /// The runnable cases of both files; empty when the folder is absent.
    static func cases() -> [Case] {
        guard let directory else { return [] }
        var out: [Case] = []
        for file in files {
            guard let data = try? Data(contentsOf: directory.appendingPathComponent(file)),
                  case .array(let records)? = try? JSONParser.parse(Array(data))
            else { continue }
            for (i, record) in records.enumerated() {
                guard case .object(let r) = record, r["disabled"] != .bool(true),
                      let doc = r["doc"], let patch = r["patch"], r["expected"] != nil || r["error"] != nil
                else { continue }
                let comment = r["comment"]?.stringValue ?? r["error"]?.stringValue ?? ""
                out.append(Case(name: "\(file)[\(i)] \(comment)", doc: doc, patch: patch, expected: r["expected"]))
            }
        }
        return out
    }
}

// Skipped, not failed, when the folder is missing: set YAIA_JSON_PATCH_TESTS to run them.
@Suite(
    "JSON Patch conformance",
    .enabled(if: JSONPatchConformance.isAvailable,
             "json-patch tests not found (set YAIA_JSON_PATCH_TESTS or provide ../shared/conformance/json-patch)")
)
struct JSONPatchConformanceTests {
    @Test("both files are read: 92 + 16 runnable cases")
    func everyCaseIsRead() {
        #expect(JSONPatchConformance.cases().count == 108)
    }

    @Test("each case gives its expected document, or is refused", arguments: JSONPatchConformance.cases())
    func conformance(_ c: JSONPatchConformance.Case) {
        do {
            let result = try JSONPatch.apply(patch: c.patch, to: c.doc)
            if let expected = c.expected {
                #expect(result == expected)
            } else {
                Issue.record("must be refused, gave \(result)")
            }
        } catch {
            #expect(c.expected == nil, "refused: \(error)")
            #expect(error.code == .badPatch || error.code == .patchTestFailed)
            #expect(error.at?.hasPrefix("/") == true, "an error in a patch points into it")
        }
    }
}
