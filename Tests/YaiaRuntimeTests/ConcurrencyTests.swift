import Foundation
import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
import YaiaRuntime

@Suite("Runtime: concurrency")
struct ConcurrencyTests {
    @Test("4 threads x 1000 sends on one scene: every reduction counted once")
    func concurrentSends() throws {
        let rt = makeRuntime()
        _ = try rt.open("example/login")
        let threads = 4
        let perThread = 1000
        let seqs = Locked<[Int64]>([])
        let failures = Locked(0)
        onThreads(threads) { t in
            var mine: [Int64] = []
            mine.reserveCapacity(perThread)
            for i in 0..<perThread {
                do {
                    let update = try Result { () throws(YaiaError) in
                        try rt.send(scene: 1, action: Action("emailChanged", payload: .string("t\(t)-\(i)@x")))
                    }.get()
                    if let seq = update["seq"]?.int64Value { mine.append(seq) }
                } catch {
                    failures.update { $0 += 1 }
                }
            }
            seqs.update { $0 += mine }
        }
        #expect(failures.value == 0)
        let total = Int64(threads * perThread)
        #expect(try rt.state(scene: 1)["seq"] == .int(total))
        // Each reduction saw a distinct seq: nothing lost, nothing doubled.
        #expect(seqs.value.sorted() == Array(1...total))
        // The last email is one of the last values a thread sent.
        let email = try #require(try rt.state(scene: 1)["state"]?["email"]?.stringValue)
        #expect((0..<threads).map { "t\($0)-\(perThread - 1)@x" }.contains(email))
    }

    @Test("4 threads x 250 execute requests on one scene")
    func concurrentExecute() throws {
        let rt = makeRuntime()
        _ = rt.run("{\"op\":\"open\",\"scene\":\"example/feed\"}")
        let errors = Locked(0)
        onThreads(4) { _ in
            for _ in 0..<250 {
                let response = rt.run("{\"op\":\"send\",\"scene\":1,\"action\":{\"type\":\"loaded\",\"payload\":{\"items\":[1]}}}")
                if response["ok"] != true { errors.update { $0 += 1 } }
            }
        }
        #expect(errors.value == 0)
        #expect(rt.run("{\"op\":\"state\",\"scene\":1}")["seq"] == 1000)
    }

    @Test("scenes opened from several threads get distinct ids")
    func concurrentOpens() {
        let rt = makeRuntime()
        let ids = Locked<[Int64]>([])
        onThreads(4) { _ in
            for _ in 0..<100 {
                if let id = (try? Result { () throws(YaiaError) in try rt.open("example/feed") }.get())?["scene"]?.int64Value {
                    ids.update { $0.append(id) }
                }
            }
        }
        #expect(ids.value.sorted() == Array(1...400))
        #expect(rt.sceneList()["scenes"]?.arrayValue?.count == 400)
    }

    @Test("services completing on many threads: one event per effect, none lost")
    func concurrentCompletions() throws {
        let rt = makeRuntime()
        let feed = HostService("feed", .thread("{\"items\":[\"x\"]}", failed: false))
        try feed.register(in: rt)
        let scenes = 50
        for _ in 0..<scenes { _ = try rt.open("example/feed") }
        onThreads(2) { half in
            for scene in stride(from: Int64(1 + half), through: Int64(scenes), by: 2) {
                _ = try? Result { () throws(YaiaError) in try rt.send(scene: scene, action: Action("load")) }.get()
            }
        }
        var seen: Set<Int64> = []
        for _ in 0..<scenes {
            guard let event = nextEvent(rt) else { break }
            #expect(event["event"] == "update")
            #expect(event["seq"] == 2)
            #expect(event["viewModel"] == ["error": .null, "isLoading": false, "items": ["x"]])
            if let scene = event["scene"]?.int64Value { seen.insert(scene) }
        }
        #expect(seen == Set(1...Int64(scenes)))
        #expect(rt.receive(timeout: 0) == nil)
        for scene in 1...Int64(scenes) {
            #expect(try rt.state(scene: scene)["state"] == ["error": .null, "isLoading": false, "items": ["x"]])
        }
    }

    @Test("resolving one effect from several threads: exactly one wins")
    func racingResolves() throws {
        let rt = makeRuntime()
        _ = try rt.open("example/feed")
        _ = try rt.send(scene: 1, action: Action("load"))
        let codes = Locked<[String]>([])
        onThreads(8) { t in
            let response = rt.run("{\"op\":\"resolve\",\"effect\":1,\"result\":{\"items\":[\(t)]}}")
            codes.update { $0.append(response["ok"] == true ? "ok" : response["error"]?["code"]?.stringValue ?? "?") }
        }
        #expect(codes.value.filter { $0 == "ok" }.count == 1)
        #expect(codes.value.filter { $0 == "effect_already_resolved" }.count == 7)
        #expect(try rt.state(scene: 1)["seq"] == 2)
    }
}
