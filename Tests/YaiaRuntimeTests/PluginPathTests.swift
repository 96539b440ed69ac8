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

    @Test func aMissingFileNamesWhereItWasLookedForAbsoluteInOrder() {
        let cwd = FileManager.default.currentDirectoryPath
        let parent = String(cwd[..<(cwd.lastIndex(of: "/") ?? cwd.startIndex)])
        #expect(searchedPlaces("x.so", directories: ["/p", "/q/", "rel"])
                == "x.so: looked at \(cwd)/x.so (in the working directory), then /p/x.so, /q/x.so, \(cwd)/rel/x.so (YAIA_PLUGIN_PATH=/p:/q/:rel)")
        #expect(searchedPlaces("x.so", directories: [])
                == "x.so: looked at \(cwd)/x.so (in the working directory); YAIA_PLUGIN_PATH, the directories looked in next, is not set")
        #expect(searchedPlaces("./x.so", directories: ["/p"])
                == "./x.so (looked at \(cwd)/x.so: a relative path starts in the working directory, \(cwd))")
        #expect(searchedPlaces("../x.so", directories: ["/p"]).hasPrefix("../x.so (looked at \(parent)/x.so: "))
        #expect(searchedPlaces("/abs/x.so", directories: ["/p"]) == "/abs/x.so")
        #expect(placeOf("todo.json") == "todo.json (looked at \(cwd)/todo.json: a relative path starts in the working directory, \(cwd))")
    }

    @Test func aMissingExamplePackOrPluginSaysHowToGetIt() {
        let pack = searchedPlaces("libyaia-examples.so", directories: [])
        #expect(pack.contains("`make examples-pack`") && pack.contains("PREFIX/lib/yaia/") && pack.contains("yaia.examples_pack()"))
        #expect(searchedPlaces("/opt/x/libyaia-examples.so", directories: []).contains("yaia.examples_pack()"))
        #expect(searchedPlaces("auth.so", directories: []).contains(#"yaia.plugin("auth")"#))
        #expect(!searchedPlaces("mine.so", directories: []).contains("make"))
    }
}
