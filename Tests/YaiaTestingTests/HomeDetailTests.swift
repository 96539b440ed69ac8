import Testing
import YaiaExamples
import YaiaKit
import YaiaTesting

/// Home items, built through the state's JSON form (`HomeState.Item` has no
/// public initializer).
func homeItems(_ pairs: [(String, String)]) throws -> [HomeState.Item] {
    let list = pairs.map { key, title -> JSON in ["key": .string(key), "title": .string(title)] }
    return try HomeState(json: ["items": .array(list), "isLoading": false]).items
}

/// The `loaded` payload of the store's `list` operation.
func listResult(_ pairs: [(String, String)]) -> JSON {
    ["items": .array(pairs.map { key, title -> JSON in ["key": .string(key), "value": ["title": .string(title)]] })]
}

@Suite("SceneTest drives example/home")
struct HomeSceneTests {
    static let user: JSON = ["id": 1]
    static let list = Effect(service: "store", op: "list", args: ["prefix": "item/"], then: "loaded", catch: "loadFailed",
                             options: .init(id: "load", policy: .latest, restore: .reissue))

    /// A home scene with two items loaded.
    func loaded() throws -> SceneTest<HomeState> {
        var test = try SceneTest(HomeState.self, args: ["user": Self.user])
        test.send(.load) { $0.isLoading = true }
        let list = test.receiveEffect(Self.list)
        let items = try homeItems([("item/1", "One"), ("item/2", "Two")])
        test.resolve(list, with: .success(listResult([("item/1", "One"), ("item/2", "Two")]))) {
            $0.isLoading = false
            $0.items = items
        }
        return test
    }

    @Test("load: the user's items, and the view model that shows them")
    func load() throws {
        var test = try loaded()
        test.expectViewModel([
            "user": Self.user, "isLoading": false, "error": .null,
            "items": [["key": "item/1", "title": "One"], ["key": "item/2", "title": "Two"]],
        ])
        test.finish()
        #expect(test.failures.isEmpty)
    }

    @Test("loading again replaces the load in flight")
    func reload() throws {
        var test = try SceneTest(HomeState.self, args: ["user": Self.user])
        test.send(.load) { $0.isLoading = true }
        let first = test.receiveEffect(Self.list)
        test.send(.load)
        let second = test.receiveEffect(Self.list)
        #expect(test.pendingEffects == [second])
        #expect(first != second)
        test.resolve(second, with: .failure(["message": "store offline"])) {
            $0.isLoading = false
            $0.error = "store offline"
        }
        test.finish()
        #expect(test.failures.isEmpty)
    }

    @Test("select pushes example/detail; its result comes back as itemSaved")
    func selectAndSave() throws {
        var test = try loaded()
        test.send(.select(key: "item/2"))
        test.expectRoute(.push("example/detail", args: ["key": "item/2", "title": "Two"], onResult: "itemSaved"))
        let renamed = try homeItems([("item/1", "One"), ("item/2", "Deux")])
        test.send("itemSaved", payload: ["key": "item/2", "title": "Deux"]) { $0.items = renamed }
        let added = try homeItems([("item/1", "One"), ("item/2", "Deux"), ("item/3", "Three")])
        test.send("itemSaved", payload: ["key": "item/3", "title": "Three"]) { $0.items = added }
        test.send(.select(key: "item/9")) { $0.error = "No item item/9" }
        test.finish()
        #expect(test.failures.isEmpty)
    }

    @Test("about is presented; logout pops to the root")
    func aboutAndLogout() {
        var test = SceneTest(HomeState())
        test.send(.showAbout)
        test.expectRoute(.present("example/about"))
        test.send(.logout)
        test.expectRoute(.popToRoot)
        test.finish()
        #expect(test.failures.isEmpty)
    }
}

@Suite("SceneTest drives example/detail and example/about")
struct DetailSceneTests {
    static let args: JSON = ["key": "item/1", "title": "One"]

    static func put(_ title: String) -> Effect {
        Effect(service: "store", op: "put", args: ["key": "item/1", "value": ["title": .string(title)]],
               then: "saved", catch: "saveFailed", options: .init(id: "save", policy: .queue))
    }

    @Test("edit, save, and pop with the item as the result")
    func save() throws {
        var test = try SceneTest(DetailState.self, args: Self.args)
        test.send(.titleChanged("Uno")) { $0.title = "Uno" }
        test.send(.save) { $0.isSaving = true }
        test.expectViewModel { $0["canSave"] == false && $0["isSaving"] == true }
        let put = test.receiveEffect(Self.put("Uno"))
        // Saving twice at once is ignored.
        test.send(.save)
        test.resolve(put, with: .success(.null)) { $0.isSaving = false }
        test.expectRoute(.pop(result: ["key": "item/1", "title": "Uno"]))
        test.finish()
        #expect(test.failures.isEmpty)
    }

    @Test("a failed save keeps the scene, with the error")
    func saveFailed() throws {
        var test = try SceneTest(DetailState.self, args: Self.args)
        test.send(.save) { $0.isSaving = true }
        let put = test.receiveEffect(service: "store", op: "put")
        test.resolve(put, with: .failure(["message": "disk full"])) {
            $0.isSaving = false
            $0.error = "disk full"
        }
        test.send(.titleChanged("")) { $0.title = "" }
        // An empty title cannot be saved.
        test.send(.save)
        test.send(.cancel)
        test.expectRoute(.pop())
        test.finish()
        #expect(test.failures.isEmpty)
    }

    @Test("bad open arguments throw, as they do in a runtime")
    func badArgs() {
        #expect(throws: YaiaError.self) { try SceneTest(DetailState.self, args: ["title": "no key"]) }
        #expect(throws: YaiaError.self) { try SceneTest(DetailState.self) }
    }

    @Test("about closes by dismissing itself")
    func about() {
        var test = SceneTest(AboutState())
        test.expectViewModel(["title": "Yaia", "text": "Application logic written as values."])
        test.send("close")
        test.expectRoute(.dismiss())
        test.finish()
        #expect(test.failures.isEmpty)
    }
}
