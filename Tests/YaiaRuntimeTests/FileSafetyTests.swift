import CYaia
import Foundation
import Glibc
import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
@testable import YaiaRuntime

/// Files and ids read from files are checked like requests: only regular
/// files are opened, never blocking; every id has a bound; an exhausted id
/// space is an error, not a trap.
@Suite struct FileSafetyTests {
    let catalog = Catalog(SceneCatalog(Examples.sceneTypes))

    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("yaia-\(UUID().uuidString)-\(name)").path
    }

    func openError(_ path: String, flags: Int32 = O_RDONLY, follow: Bool = true) -> YaiaError? {
        yaiaError { () throws(YaiaError) in
            let fd = try openRegularFile(path, flags: flags, followSymlink: follow, code: .badJournal)
            Glibc.close(fd)
        }
    }

    @Test func onlyRegularFilesOpen() throws {
        let fifo = temporaryPath("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        // Non-blocking by construction: no writer, yet the open returns.
        #expect(openError(fifo)?.message.contains("a FIFO, not a regular file") == true)
        #expect(openError(fifo, flags: O_RDWR | O_CREAT)?.message.contains("a FIFO") == true)
        #expect(openError("/dev/zero")?.message.contains("a device") == true)
        #expect(openError(NSTemporaryDirectory())?.message.contains("a directory") == true)
        #expect(openError(temporaryPath("absent"))?.code == .badJournal)

        let file = temporaryPath("file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        defer { unlink(file) }
        #expect(openError(file) == nil)
        let link = temporaryPath("link")
        #expect(symlink(file, link) == 0)
        defer { unlink(link) }
        #expect(openError(link) == nil)
        #expect(openError(link, follow: false)?.message.contains("symbolic link") == true)
        // Descriptors are close-on-exec and blocking again.
        let fd = try #require(try? openRegularFile(file, flags: O_RDONLY, followSymlink: true, code: .badJournal))
        defer { Glibc.close(fd) }
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(fd, F_GETFL) & O_NONBLOCK == 0)
    }

    /// Both ways of opening beneath a directory: the kernel's openat2, and
    /// the walk component by component that kernels without it get.
    @Test(arguments: [Int32(1), 0]) func openingBeneathFollowsNoLink(kernel: Int32) throws {
        let dir = temporaryPath("beneath"), out = temporaryPath("out")
        #expect(mkdir(dir, 0o700) == 0 && mkdir(dir + "/sub", 0o700) == 0 && mkdir(out, 0o700) == 0)
        defer { _ = try? FileManager.default.removeItem(atPath: dir); _ = try? FileManager.default.removeItem(atPath: out) }
        #expect(FileManager.default.createFile(atPath: dir + "/sub/file", contents: Data("in".utf8)))
        #expect(FileManager.default.createFile(atPath: out + "/file", contents: Data("out".utf8)))
        #expect(symlink(out + "/file", dir + "/link") == 0 && symlink(out, dir + "/dirlink") == 0)
        #expect(symlink(out + "/new", dir + "/dangling") == 0)
        func open(_ path: String, _ flags: Int32 = O_RDONLY) -> (fd: Int32, error: Int32) {
            let fd = cyaia_open_beneath(dir, path, flags | O_CLOEXEC, 0o600, kernel)
            return (fd, fd < 0 ? errno : 0)
        }
        let good = open("sub/file")
        #expect(good.fd >= 0)
        if good.fd >= 0 { close(good.fd) }
        #expect(open("link").error == ELOOP)
        #expect(open("dirlink/file").error == ELOOP)
        #expect(open("dangling", O_RDWR | O_CREAT).error == ELOOP)
        #expect(access(out + "/new", F_OK) != 0)
        #expect(open("../" + (out as NSString).lastPathComponent + "/file").error == EXDEV)
        #expect(open("sub/absent").error == ENOENT)
    }

    @Test func aJournalReplacesOnlyAJournalOrAnEmptyFile() throws {
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        let other = temporaryPath("notes.txt")
        #expect(FileManager.default.createFile(atPath: other, contents: Data("precious\n".utf8)))
        defer { unlink(other) }
        let error = yaiaError { () throws(YaiaError) in try rt.startJournal(path: other) }
        #expect(error?.code == .badJournal)
        #expect(error?.message.contains("is not a journal") == true)
        #expect(try String(contentsOfFile: other, encoding: .utf8) == "precious\n")

        let journal = temporaryPath("j.jsonl")
        defer { unlink(journal) }
        _ = try rt.startJournal(path: journal)
        _ = try rt.open("example/login")
        _ = rt.stopJournal()
        let first = try String(contentsOfFile: journal, encoding: .utf8)
        #expect(first.split(separator: "\n").count == 2)
        // An earlier journal is replaced, from its start.
        _ = try rt.startJournal(path: journal)
        _ = rt.stopJournal()
        let second = try String(contentsOfFile: journal, encoding: .utf8)
        #expect(second.split(separator: "\n").count == 1)
        #expect(second.hasPrefix("{\"format\":\"yaia.journal/1\","))
    }

    func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    @Test func stoppedJournalsCloseTheirFiles() throws {
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        let path = temporaryPath("cycle.jsonl")
        defer { unlink(path) }
        _ = try rt.startJournal(path: path)
        _ = rt.stopJournal()
        let before = openDescriptors()
        for _ in 0..<200 {
            _ = try rt.startJournal(path: path)
            _ = rt.stopJournal()
        }
        // Other suites run alongside: allow them a few descriptors, not one per cycle.
        #expect(openDescriptors() < before + 50)
    }

    @Test func idsBeyondTheBoundAreRefusedWhereTheyStand() throws {
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        let scene = try #require(try rt.open("example/login")["scene"]?.int64Value)
        let good = try rt.snapshot()
        let huge = JSON.int(Int64.max)
        let cases: [(String, (inout JSONObject) -> Void)] = [
            ("/scenes/0/id", { s in s.set(["scenes", 0, "id"], huge) }),
            ("/scenes/0/seq", { s in s.set(["scenes", 0, "seq"], huge) }),
            ("/scenes/0/seq", { s in s.set(["scenes", 0, "seq"], .int(-1)) }),
            ("/next/scene", { s in s.set(["next", "scene"], huge) }),
            ("/next/effect", { s in s.set(["next", "effect"], .int(Runtime.maxID + 2)) }),
            ("/next/flow", { s in s.set(["next", "flow"], .int(0)) }),
        ]
        for (at, change) in cases {
            var s = try #require(good.objectValue)
            change(&s)
            let error = yaiaError { () throws(YaiaError) in try rt.restore(.object(s)) }
            #expect(error?.code == .badSnapshot, "\(at)")
            #expect(error?.at == at, "\(at): \(String(describing: error))")
        }
        // Nothing changed, and the runtime goes on.
        #expect(try rt.send(scene: scene, action: Action("emailChanged", payload: "a@b.c"))["seq"] == 1)
    }

    @Test func theLastIdIsHandedOutThenIdsRunOut() throws {
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        var s = try #require(try rt.snapshot().objectValue)
        s.set(["next", "scene"], .int(Runtime.maxID))
        _ = try rt.restore(.object(s))
        #expect(try rt.open("example/login")["scene"]?.int64Value == Runtime.maxID)
        #expect(yaiaError { () throws(YaiaError) in try rt.open("example/login") }?.code == .idsExhausted)
        #expect(yaiaError { () throws(YaiaError) in try rt.startFlow(name: nil, scene: "example/login", args: [:]) }?.code == .idsExhausted)
        #expect(try rt.send(scene: Runtime.maxID, action: Action("emailChanged", payload: "a@b.c"))["seq"] == 1)
    }

    @Test func effectIdsRunOutWithoutATrap() throws {
        let rt = Runtime(catalog: catalog)
        defer { rt.shutDown() }
        let scene = try #require(try rt.open("example/login")["scene"]?.int64Value)
        _ = try rt.send(scene: scene, action: Action("emailChanged", payload: "a@b.c"))
        _ = try rt.send(scene: scene, action: Action("passwordChanged", payload: "pw"))
        var s = try #require(try rt.snapshot().objectValue)
        s.set(["next", "effect"], .int(Runtime.maxID))
        _ = try rt.restore(.object(s))
        let submit = try rt.send(scene: scene, action: Action("submit"))
        #expect(submit["effects"]?.arrayValue?.first?["id"]?.int64Value == Runtime.maxID)
        let error = yaiaError { () throws(YaiaError) in try rt.send(scene: scene, action: Action("emailChanged", payload: "x@y.z")) }
        #expect(error?.code == .idsExhausted)
    }

    @Test func aLineLongerThanTheLimitIsRefusedWithoutReadingOn() throws {
        let path = temporaryPath("long.jsonl")
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        // A sparse file of 4 GiB with no line break: reading it all would take
        // gigabytes; the replay stops at the limit (1 MiB here, 16 MiB by default).
        #expect(ftruncate(fd, 4 << 30) == 0)
        close(fd)
        let error = yaiaError { () throws(YaiaError) in try Runtime.replay(path: path, catalog: catalog, maxLine: 1 << 20) }
        #expect(error?.code == .badJournal)
        #expect(error?.message.contains("line 1 of \(path) is longer than request_bytes, 1048576 bytes") == true)
    }
}

extension JSONObject {
    /// Sets a value at a path of keys and array indexes, for tests.
    mutating func set(_ path: [any Sendable], _ value: JSON) {
        var root = JSON.object(self)
        root.set(path[...], value)
        if case .object(let o) = root { self = o }
    }
}

extension JSON {
    fileprivate mutating func set(_ path: ArraySlice<any Sendable>, _ value: JSON) {
        guard let first = path.first else {
            self = value
            return
        }
        switch (self, first) {
        case (.object(var o), let key as String):
            var child = o[key] ?? .null
            child.set(path.dropFirst(), value)
            o[key] = child
            self = .object(o)
        case (.array(var a), let index as Int):
            a[index].set(path.dropFirst(), value)
            self = .array(a)
        default: break
        }
    }
}
