import Foundation
import Testing
@testable import YaiaRuntime

/// resolveLibraryPath: how plugin and scene pack paths are found. Files made
/// in a fresh folder; the working directory is never changed (tests run in
/// parallel), so names relative to it are checked in Tests/python/test_plugin_paths.py.
@Suite final class PluginPathTests {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("yaia-paths-\(UUID().uuidString)").path
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true)
        }
        for file in ["a/both.so", "b/both.so", "b/only-b.so"] {
            try Data().write(to: URL(fileURLWithPath: "\(root)/\(file)"))
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// A name no working directory has.
    var unique: String { "yaia-no-such-\(UUID().uuidString).so" }

    @Test func anAbsolutePathIsTakenAsItIs() {
        #expect(resolveLibraryPath("\(root)/a/both.so", searching: ["\(root)/b"]) == "\(root)/a/both.so")
        #expect(resolveLibraryPath("\(root)/a/only-b.so", searching: ["\(root)/b"]) == nil)
    }

    @Test func aBareNameIsSearchedInTheDirectoriesInOrder() {
        #expect(resolveLibraryPath("both.so", searching: ["\(root)/a", "\(root)/b"]) == "\(root)/a/both.so")
        #expect(resolveLibraryPath("both.so", searching: ["\(root)/b/", "\(root)/a"]) == "\(root)/b/both.so")
        #expect(resolveLibraryPath("only-b.so", searching: ["", "\(root)/a", "\(root)/b"]) == "\(root)/b/only-b.so")
    }

    @Test func aRelativePathWithFoldersIsSearchedToo() {
        #expect(resolveLibraryPath("b/only-b.so", searching: [root]) == "\(root)/b/only-b.so")
    }

    @Test func dotSlashMeansTheWorkingDirectoryOnly() {
        #expect(resolveLibraryPath("./both.so", searching: ["\(root)/a"]) == nil)
        #expect(resolveLibraryPath("../both.so", searching: ["\(root)/a"]) == nil)
    }

    @Test func nothingFoundIsNil() {
        #expect(resolveLibraryPath(unique, searching: ["\(root)/a", "\(root)/b"]) == nil)
        #expect(resolveLibraryPath("", searching: ["\(root)/a"]) == nil)
        #expect(resolveLibraryPath(unique, searching: []) == nil)
    }

    @Test func aMissingFileNamesWhereItWasLookedFor() {
        #expect(searchedPlaces("x.so", directories: ["/p", "/q"]) == "x.so (in the working directory, then YAIA_PLUGIN_PATH: /p:/q)")
        #expect(searchedPlaces("x.so", directories: []) == "x.so")
        #expect(searchedPlaces("./x.so", directories: ["/p"]) == "./x.so")
    }
}
