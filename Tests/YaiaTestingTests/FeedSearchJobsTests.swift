import Testing
import YaiaExamples
import YaiaKit
import YaiaTesting

@Suite("SceneTest drives example/feed")
struct FeedSceneTests {
    static let fetch = Effect(service: "feed", op: "fetch", args: [:], then: "loaded", catch: "failed", options: .init(restore: .reissue))

    @Test("load, a second load while loading, then the items")
    func load() throws {
        var test = try SceneTest(FeedState.self)
        test.send(.load) { $0.isLoading = true }
        let fetch = test.receiveEffect(Self.fetch)
        // Already loading: nothing changes, nothing is emitted.
        test.send(.load)
        test.resolve(fetch, with: .success(["items": [1, "two", ["three": 3]]])) {
            $0.isLoading = false
            $0.items = [1, "two", ["three": 3]]
        }
        test.expectViewModel { !$0.isLoading && $0.items.count == 3 && $0.error == nil }
        test.finish()
        #expect(test.failures.isEmpty)
    }

    @Test("a failed load shows its message; loading again clears it")
    func failed() {
        var test = SceneTest(FeedState())
        test.send("load") { $0.isLoading = true }
        let fetch = test.receiveEffect(service: "feed", op: "fetch")
        test.resolve(fetch, with: .failure(["message": "offline"])) {
            $0.isLoading = false
            $0.error = "offline"
        }
        test.send(.load) {
            $0.isLoading = true
            $0.error = nil
        }
        let again = test.receiveEffect(Self.fetch)
        test.resolve(again, with: .success(["items": []])) { $0.isLoading = false }
        test.finish()
        #expect(test.failures.isEmpty)
    }
}

@Suite("SceneTest drives example/search")
struct SearchSceneTests {
    static func query(_ q: String) -> Effect {
        Effect(service: "search", op: "query", args: ["query": .string(q)], then: "results", catch: "searchFailed",
               options: .init(id: "search", timeout: SearchState.timeout, policy: .latest))
    }

    @Test("each query replaces the one in flight (policy latest)")
    func latest() {
        var test = SceneTest(SearchState())
        test.send(.queryChanged("sw")) {
            $0.query = "sw"
            $0.isSearching = true
        }
        let first = test.receiveEffect(Self.query("sw"))
        test.send(.queryChanged("swi")) { $0.query = "swi" }
        let second = test.receiveEffect(Self.query("swi"))
        // The first search was cancelled by the second: only the second needs an outcome.
        #expect(test.pendingEffects == [second])
        expectFailure("the effect was cancelled by #1 search.query (policy latest, id \"search\")") {
            test.resolve(first, with: .success(["query": "sw", "items": []]))
        }
        test.resolve(second, with: .success(["query": "swi", "items": ["swift"]])) {
            $0.isSearching = false
            $0.results = ["swift"]
        }
        test.expectViewModel { $0.results == ["swift"] && !$0.isSearching }
        // A late answer to an older query changes nothing.
        test.send("results", payload: ["query": "sw", "items": ["swamp"]])
        test.finish()
        #expect(test.failures.count == 1)
    }

    @Test("clearing the query cancels the search: no outcome is owed")
    func clear() {
        var test = SceneTest(SearchState())
        test.send(.queryChanged("sw")) {
            $0.query = "sw"
            $0.isSearching = true
        }
        test.receiveEffect(service: "search", op: "query", args: ["query": "sw"])
        test.send(.queryChanged("")) {
            $0.query = ""
            $0.isSearching = false
        }
        #expect(test.pendingEffects.isEmpty)
        test.finish()
        #expect(test.failures.isEmpty)
    }

    @Test("a timeout is delivered as a failure with code timeout")
    func timeout() {
        var test = SceneTest(SearchState())
        test.send(.queryChanged("sw")) {
            $0.query = "sw"
            $0.isSearching = true
        }
        let search = test.receiveEffect(Self.query("sw"))
        #expect(search.effect.timeout == SearchState.timeout)
        test.resolve(search, with: .failure(["code": "timeout"])) {
            $0.isSearching = false
            $0.error = "Search failed"
        }
        test.finish()
        #expect(test.failures.isEmpty)
    }
}

@Suite("SceneTest drives example/jobs")
struct JobsSceneTests {
    @Test("run, cancel by key, outcomes logged in the order resolved")
    func runAndCancel() {
        var test = SceneTest(JobsState())
        test.send("run", payload: ["service": "timer", "op": "wait", "args": 1, "id": "nap"])
        let nap = test.receiveEffect(Effect(service: "timer", op: "wait", args: 1, then: "done", catch: "failed", options: .init(id: "nap")))
        test.send("run", payload: ["service": "echo", "op": "say", "args": "hi"])
        let echo = test.receiveEffect(service: "echo", op: "say", args: "hi")
        test.send(.cancel("nap"))
        #expect(test.pendingEffects == [echo])
        expectFailure("the effect was cancelled by .cancel(\"nap\") from send(cancel(\"nap\"))") {
            test.resolve(nap, with: .success(1))
        }
        test.resolve(echo, with: .failure(["code": "service_failed"])) {
            $0.log = [["ok": false, "error": ["code": "service_failed"]]]
        }
        test.finish()
        #expect(test.failures.count == 1)
    }

    @Test("an effect with policy queue waits for the earlier ones with its id")
    func queue() {
        var test = SceneTest(JobsState())
        test.send("run", payload: ["service": "db", "op": "write", "args": 1, "id": "w", "policy": "queue"])
        let one = test.receiveEffect(service: "db", op: "write", args: 1)
        test.send("run", payload: ["service": "db", "op": "write", "args": 2, "id": "w", "policy": "queue"])
        let two = test.receiveEffect(service: "db", op: "write", args: 2)
        expectFailure("the effect is queued behind #0 db.write with key \"w\"") {
            test.resolve(two, with: .success("second"))
        }
        test.resolve(one, with: .success("first")) { $0.log = [["ok": true, "result": "first"]] }
        test.resolve(two, with: .success("second")) { $0.log.append(["ok": true, "result": "second"]) }
        expectFailure("resolve(#1 db.write, with: .success(\"again\")): the effect was resolved already") {
            test.resolve(two, with: .success("again"))
        }
        test.finish()
        #expect(test.failures.count == 2)
    }
}
