@testable import Notes
import Testing
import YaiaKit
import YaiaTesting

/// What store.list answers for these notes.
func listed(_ notes: [Note]) -> JSON {
    ["items": .array(notes.map { ["key": .string($0.key), "value": $0.json] })]
}

/// The list's elements for these notes.
func entries(_ notes: [Note]) -> KeyedList<ListState.Entry> {
    KeyedList(notes.map(ListState.Entry.init))
}

/// The ids of the rows a list's view model shows.
func shown(_ view: ListState.ViewModel) -> [Int] { view.shown }

/// The rows a list wants: one per note, its args the note.
func rowChildren(_ notes: [Note]) -> [Child] {
    notes.map { Child.keyed("rows", key: Int64($0.id), args: $0.json) }
}

let groceries = Note(id: 1, title: "Groceries", body: "Milk\nEggs")
let bank = Note(id: 2, title: "Call the bank")

/// A list that has loaded `notes`.
func loadedList(_ notes: [Note] = [groceries, bank]) -> SceneTest<ListState> {
    var test = SceneTest(ListState(user: ada))
    test.send(.load) { $0.isLoading = true }
    let list = test.receiveEffect(service: "store", op: "list")
    test.resolve(list, with: .success(listed(notes))) {
        $0.isLoading = false
        $0.hasLoaded = true
        $0.notes = entries(notes)
        $0.nextID = (notes.map(\.id).max() ?? 0) + 1
    }
    return test
}

@Suite("notes/list")
struct ListTests {
    @Test("load lists the notes from the store by prefix, in id order")
    func load() throws {
        var test = try SceneTest(ListState.self, args: ["user": ["email": "ada@example.com"]])
        test.expectViewModel { $0.json == ["user": "ada@example.com", "shown": [], "isLoading": false, "canCreate": false,
                                           "placeholder": "Loading…", "error": .null, "query": ""] }
        test.send(.load) { $0.isLoading = true }
        let list = test.receiveEffect(Effect(service: "store", op: "list", args: ["prefix": "note/", "limit": 10000],
                                             then: "loaded", catch: "loadFailed", options: .init(id: "load", policy: .latest, restore: .reissue)))
        // The store answers in key order: "note/10" before "note/2".
        let ten = Note(id: 10, title: "Ten", body: "  first line\nsecond line")
        test.resolve(list, with: .success(listed([ten, bank]))) {
            $0.isLoading = false
            $0.hasLoaded = true
            $0.notes = entries([bank, ten])
            $0.nextID = 11
        }
        #expect(test.state.children == rowChildren([bank, ten]))
        test.expectViewModel { $0.json == ["user": "ada@example.com",
                                           "shown": [2, 10],
                                           "isLoading": false, "canCreate": true, "placeholder": .null, "error": .null, "query": ""] }
        test.finish()
    }

    @Test("a stored value that is not a note is skipped and counted, not fatal")
    func unreadable() {
        var test = SceneTest(ListState(user: ada))
        test.send(.load) { $0.isLoading = true }
        let list = test.receiveEffect(service: "store", op: "list")
        let items: JSON = ["items": [["key": "note/1", "value": groceries.json],
                                     ["key": "note/2", "value": "not a note"],
                                     ["key": "note/9", "value": groceries.json]]]  // under another note's key
        test.resolve(list, with: .success(items)) {
            $0.isLoading = false
            $0.hasLoaded = true
            $0.notes = entries([groceries])
            $0.nextID = 2
            $0.unreadable = 2
        }
        test.expectViewModel { $0.error == "2 stored notes could not be read" }
        test.finish()
    }

    @Test("a failed load shows why and can be retried")
    func loadFails() {
        var test = SceneTest(ListState(user: ada))
        test.send(.load) { $0.isLoading = true }
        let list = test.receiveEffect(service: "store", op: "list")
        test.resolve(list, with: .failure(["code": "sqlite_error", "message": "disk I/O error"])) {
            $0.isLoading = false
            $0.error = "Could not load your notes: disk I/O error"
        }
        test.send(.load) {
            $0.isLoading = true
            $0.error = nil
        }
        let again = test.receiveEffect(service: "store", op: "list")
        test.resolve(again, with: .success(["items": []])) {
            $0.isLoading = false
            $0.hasLoaded = true
        }
        test.expectViewModel { $0.placeholder == "No notes yet" && $0.canCreate }
        test.finish()
    }

    @Test("a new note gets the next id from the state, never reused, and opens the editor")
    func newNote() {
        var test = SceneTest(ListState(user: ada))
        test.send(.newNote) { $0.error = "Wait until your notes have loaded" }
        test = loadedList()
        test.send(.newNote) { $0.nextID = 4 }
        test.expectRoute(.push("notes/editor", args: ["note": ["id": 3, "title": "", "body": ""], "isNew": true],
                               onResult: "editorClosed"))
        // The editor was cancelled (no result): the next new note still gets a fresh id.
        test.send(.newNote) { $0.nextID = 5 }
        test.expectRoute(.push("notes/editor", args: ["note": ["id": 4, "title": "", "body": ""], "isNew": true],
                               onResult: "editorClosed"))
        test.finish()
    }

    @Test("opening a note pushes the editor with it")
    func open() {
        var test = loadedList()
        test.send(.open(1))
        test.expectRoute(.push("notes/editor", args: ["note": groceries.json, "isNew": false], onResult: "editorClosed"))
        test.send("open", payload: 7) { $0.error = "There is no note 7" }
        test.send(.open(2)) { $0.error = nil }
        test.expectRoute(.push("notes/editor", args: ["note": bank.json, "isNew": false], onResult: "editorClosed"))
        test.finish()
    }

    @Test("what the editor saved or deleted comes back as its result")
    func editorResults() {
        var test = loadedList()
        let renamed = Note(id: 2, title: "Called the bank", body: "done")
        test.send("editorClosed", payload: ["saved": renamed.json]) { $0.notes = entries([groceries, renamed]) }
        let fresh = Note(id: 3, title: "New")
        test.send(.editorClosed(saved: fresh, deleted: nil)) {
            $0.notes = entries([groceries, renamed, fresh])
            $0.nextID = 4
        }
        test.send("editorClosed", payload: ["deleted": 1]) { $0.notes = entries([renamed, fresh]) }
        test.expectViewModel { shown($0) == [2, 3] }
        // The saved note is its row's args: the runtime sends them to the row as noteChanged.
        #expect(test.state.children == rowChildren([renamed, fresh]))
        test.finish()
    }

    @Test("search: the view shows the notes whose title or body holds the query, ignoring case; the state keeps them all")
    func search() {
        let milk = Note(id: 3, title: "Dairy", body: "Oat MILK")
        var test = loadedList([groceries, bank, milk])
        test.send(.searchChanged("mIlK")) { $0.query = "mIlK" }
        test.expectViewModel { $0.query == "mIlK" && shown($0) == [1, 3] && $0.placeholder == nil }
        test.send("searchChanged", payload: "bank") { $0.query = "bank" }
        test.expectViewModel { shown($0) == [2] }
        test.send(.searchChanged("kiwi")) { $0.query = "kiwi" }
        test.expectViewModel { shown($0).isEmpty && $0.placeholder == "No notes match “kiwi”" }
        // A note saved while searching stays in the state, shown only if it matches.
        test.send(.editorClosed(saved: Note(id: 4, title: "Kiwis"), deleted: nil)) {
            $0.notes.append(.init(Note(id: 4, title: "Kiwis")))
            $0.nextID = 5
        }
        test.expectViewModel { shown($0) == [4] && $0.placeholder == nil }
        test.send(.searchChanged("")) { $0.query = "" }
        test.expectViewModel { shown($0) == [1, 2, 3, 4] }
        // A note saved between others keeps the list in id order.
        test.send(.editorClosed(saved: Note(id: 0, title: "Zero"), deleted: nil)) {
            $0.notes.insert(.init(Note(id: 0, title: "Zero")), at: 0)
        }
        test.expectViewModel { shown($0) == [0, 1, 2, 3, 4] }
        test.finish()
        #expect(thrown { try ListState.Action(Action("searchChanged", payload: 1)) }?.at == "/payload")
    }

    @Test("the search text is made when a note enters the list, and again when a state is read back")
    func searchText() throws {
        var test = loadedList([groceries, bank])
        test.send(.searchChanged("EGG")) { $0.query = "EGG" }
        test.expectViewModel { shown($0) == [1] }
        test.send(.editorClosed(saved: Note(id: 1, title: "Groceries", body: "Milk"), deleted: nil)) {
            $0.notes.update(.init(Note(id: 1, title: "Groceries", body: "Milk")))
        }
        test.expectViewModel { shown($0).isEmpty }
        test.send(.searchChanged("mil")) { $0.query = "mil" }
        test.expectViewModel { shown($0) == [1] }
        test.finish()
        // The state's JSON holds the notes alone; read back, it searches the same.
        let state = test.state
        #expect(state.json["notes"] == .array([["id": 1, "title": "Groceries", "body": "Milk"], bank.json]))
        let restored = try ListState(json: state.json)
        #expect(shown(restored.viewModel) == [1])
    }

    @Test("after many changes and searches the view model is the one made from scratch")
    func derivedMatchesFresh() throws {
        var state = ListState(user: ada)
        _ = state.reduce(.loaded(items: (1...200).map { .init(key: "note/\($0)", value: Note(id: $0, title: "T\($0)", body: "b\($0 % 7)").json) }))
        _ = state.viewModel
        for i in 1...60 {
            switch i % 4 {
            case 0: _ = state.reduce(.editorClosed(saved: Note(id: i * 7 % 200 + 1, title: "Edited \(i)"), deleted: nil))
            case 1: _ = state.reduce(.editorClosed(saved: nil, deleted: i * 13 % 200 + 1))
            case 2: _ = state.reduce(.editorClosed(saved: Note(id: 300 - i, title: "New \(i)", body: "B6"), deleted: nil))
            default: _ = state.reduce(.searchChanged(["", "b6", "t1", "edited"][i / 4 % 4]))
            }
            _ = state.viewModel
            if i % 5 == 0 {
                #expect(state.viewModel.json == (try ListState(json: state.json)).viewModel.json)
            }
        }
        #expect(state.notes.map(\.id) == state.notes.map(\.id).sorted())
    }

    @Test("logout goes back to the login")
    func logout() {
        var test = loadedList()
        test.send(.logout)
        test.expectRoute(.popToRoot)
        test.finish()
    }

    @Test("a list that filled the store's limit hands out no id: it has not seen them all")
    func truncated() {
        var test = SceneTest(ListState(user: ada))
        test.send(.load) { $0.isLoading = true }
        let list = test.receiveEffect(service: "store", op: "list")
        let notes = (1...ListState.limit).map { Note(id: $0, title: "n\($0)") }
        test.resolve(list, with: .success(listed(notes))) {
            $0.isLoading = false
            $0.hasLoaded = true
            $0.isTruncated = true
            $0.notes = entries(notes)
            $0.nextID = ListState.limit + 1
        }
        test.expectViewModel { !$0.canCreate }
        test.send(.newNote) { $0.error = "There are too many notes to add another" }
        test.finish()
    }

    @Test("a row's outputs: open pushes the editor, renamed takes the note, deleted drops it and its row")
    func rowOutputs() {
        var test = loadedList()
        #expect(ListState.childSlots == [ChildSlot("rows", scene: "notes/row", kind: .keyed,
                                                   outputs: ["open": "rowOpened", "renamed": "rowRenamed", "deleted": "rowDeleted"],
                                                   argsAction: "noteChanged")])
        test.send("rowOpened", payload: ["key": 2, "output": 2])
        test.expectRoute(.push("notes/editor", args: ["note": bank.json, "isNew": false], onResult: "editorClosed"))
        test.send("rowOpened", payload: ["key": 9, "output": 9]) { $0.error = "There is no note 9" }
        let renamed = Note(id: 1, title: "Shopping", body: groceries.body)
        test.send("rowRenamed", payload: ["key": 1, "output": renamed.json]) { $0.notes = entries([renamed, bank]) }
        test.send("rowDeleted", payload: ["key": 2, "output": 2]) { $0.notes = entries([renamed]) }
        #expect(test.state.children == rowChildren([renamed]))
        test.finish()
    }

    @Test("the rows follow the notes, not the search")
    func rowsFollowNotes() {
        var test = loadedList()
        test.send(.searchChanged("bank")) { $0.query = "bank" }
        test.expectViewModel { shown($0) == [2] }
        #expect(test.state.children == rowChildren([groceries, bank]))
        test.finish()
    }

    @Test("previews: the first line, at most 80 characters")
    func previews() {
        #expect(ListState.preview("one\r\ntwo") == "one")
        #expect(ListState.preview(String(repeating: "é", count: 80)) == String(repeating: "é", count: 80))
        #expect(ListState.preview(String(repeating: "é", count: 81)) == String(repeating: "é", count: 79) + "…")
        // ASCII takes a path of its own, with the same cuts.
        #expect(ListState.preview(String(repeating: "a", count: 80)) == String(repeating: "a", count: 80))
        #expect(ListState.preview(String(repeating: "a", count: 81)) == String(repeating: "a", count: 79) + "…")
        #expect(ListState.preview("tab\u{0B}next") == "tab")
        #expect(ListState.preview("  plain then é\nnext") == "plain then é")
        #expect(ListState.preview("line\u{2028}next") == "line")
    }

    @Test("search matches bytes of the lower-cased text")
    func contains() {
        #expect(ListState.contains("café au lait", "é au"))
        #expect(ListState.contains("abc", ""))
        #expect(!ListState.contains("ab", "abc"))
        #expect(ListState.contains("aab", "ab"))
        #expect(!ListState.contains("", "a"))
    }

    @Test("open arguments need a user")
    func args() {
        let missing = thrown { try ListState(args: [:]) }
        #expect(missing?.code == .badArgs)
        #expect(missing?.at == "/user")
        #expect(thrown { try ListState(args: ["user": ["email": true]]) }?.at == "/user/email")
    }

    @Test("the state survives its JSON form")
    func snapshot() {
        #expect(roundTrips(loadedList().state))
    }
}
