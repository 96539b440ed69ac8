import Foundation
import Testing
import YaiaCore
import YaiaKit

/// The JSONTestSuite parsing files (https://github.com/nst/JSONTestSuite):
/// y_ must be accepted, n_ refused, i_ either (but never crash).
enum Conformance {
    /// YAIA_CONFORMANCE_DIR, else ../shared/conformance/json-parsing next to the package root.
    static let directory: URL? = {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["YAIA_CONFORMANCE_DIR"], !env.isEmpty {
            return fm.fileExists(atPath: env) ? URL(fileURLWithPath: env, isDirectory: true) : nil
        }
        // #filePath is <root>/Tests/YaiaCoreTests/ConformanceTests.swift.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let dir = root.deletingLastPathComponent().appendingPathComponent("shared/conformance/json-parsing", isDirectory: true)
        var isDirectory: ObjCBool = false
        return fm.fileExists(atPath: dir.path, isDirectory: &isDirectory) && isDirectory.boolValue ? dir : nil
    }()

    static var isAvailable: Bool { directory != nil }

    /// File names starting with `prefix`, sorted; empty when the folder is absent.
    static func files(_ prefix: String) -> [String] {
        guard let directory,
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else { return [] }
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        let url = try #require(directory).appendingPathComponent(name)
        return Array(try Data(contentsOf: url))
    }
}

// When the folder is missing these tests are skipped, not failed: set
// YAIA_CONFORMANCE_DIR to the JSONTestSuite test_parsing folder to run them.
@Suite(
    "JSONTestSuite conformance",
    .enabled(if: Conformance.isAvailable,
             "JSONTestSuite folder not found (set YAIA_CONFORMANCE_DIR or provide ../shared/conformance/json-parsing)")
)
struct ConformanceTests {
    @Test("the folder holds all three kinds of files")
    func folderIsComplete() {
        #expect(!Conformance.files("y_").isEmpty)
        #expect(!Conformance.files("n_").isEmpty)
        #expect(!Conformance.files("i_").isEmpty)
    }

    @Test("y_ files parse, and re-serialize to text that parses back equal", arguments: Conformance.files("y_"))
    func accepted(name: String) throws {
        let bytes = try Conformance.bytes(name)
        let value: JSON
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            Issue.record("\(name) must parse: \(error)")
            return
        }
        let text = value.serializedBytes()
        let again = try JSONParser.parse(text)
        #expect(again == value)
        // Canonical output is a fixed point.
        #expect(again.serializedBytes() == text)
    }

    @Test("n_ files are refused with invalid_json (or the depth limit)", arguments: Conformance.files("n_"))
    func refused(name: String) throws {
        let bytes = try Conformance.bytes(name)
        let error = parseError(bytes)
        #expect(error.map(refusedAsInvalid) == true, "\(name) must be refused")
    }

    @Test("i_ files are accepted or refused, without crashing", arguments: Conformance.files("i_"))
    func implementationDefined(name: String) throws {
        let bytes = try Conformance.bytes(name)
        do throws(YaiaError) {
            let value = try JSONParser.parse(bytes)
            // Accepted: it must then behave like any accepted value.
            let again = try JSONParser.parse(value.serializedBytes())
            #expect(again == value)
            print("conformance: \(name): accepted as \(value.serialized().prefix(60))")
        } catch {
            // Refused: only ever as invalid JSON, or too deep.
            #expect(refusedAsInvalid(error))
            print("conformance: \(name): refused (\(error.message))")
        }
    }
}

/// How a parser refuses a text: a syntax error, or nesting beyond its depth limit.
private func refusedAsInvalid(_ error: YaiaError) -> Bool {
    error.code == .invalidJSON || (error.code == .limitExceeded && error.limit == "depth")
}
