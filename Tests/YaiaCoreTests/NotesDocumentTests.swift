import Foundation
import Testing
import YaiaCore
import YaiaKit

// The notes app's scene documents (Examples/notes-documents) driven with
// values through the interpreter: a document, an action, the expected state,
// commands and view model. The same scenes as the Swift ones of
// Examples/notes; Tests/python/test_notes_values.py runs both through the
// runtime and checks that they agree.

enum NotesDocuments {
    static let names = ["notes/login", "notes/list", "notes/row", "notes/editor"]

    /// Examples/notes-documents/NAME.json, read from the package root.
    static func json(_ file: String) throws -> JSON {
        // #filePath is <root>/Tests/YaiaCoreTests/NotesDocumentTests.swift.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("Examples/notes-documents/\(file).json"))
        return try JSONParser.parse(Array(data))
    }

    /// The scene type of a document, loaded with the catalog of the four names.
    static func scene(_ file: String) throws -> DocumentScene {
        try DocumentScene(json(file), catalog: Set(names))
    }

    /// Reduces `action` (JSON text) on `scene`.
    @discardableResult
    static func send(_ scene: inout DocumentSceneValue, _ action: String) throws -> [Command] {
        try scene.reduce(Action(json: JSONParser.parse(action)))
    }
}

@Suite("Scene documents: the notes app (Examples/notes-documents)")
struct NotesDocumentTests {
    @Test("the four documents load without a problem, their routes and children naming scenes of the catalog")
    func load() throws {
        for (file, name) in zip(["login", "list", "row", "editor"], NotesDocuments.names) {
            let document = try NotesDocuments.json(file)
            #expect(SceneDocument.check(document, catalog: Set(NotesDocuments.names)) == [], "\(file).json")
            #expect(try NotesDocuments.scene(file).name == name)
        }
    }

    @Test("notes/login: the form is checked, then submit emits auth.login with the email trimmed")
    func login() throws {
        var s = try NotesDocuments.scene("login").open()
        #expect(s.json == ["email": "", "password": "", "isSubmitting": false, "error": .null])
        #expect(try NotesDocuments.send(&s, #"{"type": "submit"}"#) == [])
        #expect(s.json["error"] == "Enter your email address")
        try NotesDocuments.send(&s, #"{"type": "emailChanged", "payload": "ada@@example.com"}"#)
        #expect(s.viewModel["emailError"] == "Enter a valid email address")
        try NotesDocuments.send(&s, #"{"type": "emailChanged", "payload": " ada@example.com "}"#)
        try NotesDocuments.send(&s, #"{"type": "passwordChanged", "payload": "hunter2"}"#)
        #expect(s.viewModel == ["email": " ada@example.com ", "emailError": .null, "canSubmit": true, "isSubmitting": false,
                                "error": .null])

        let commands = try NotesDocuments.send(&s, #"{"type": "submit"}"#)
        #expect(commands == [.effect(Effect(service: "auth", op: "login", args: ["email": "ada@example.com", "password": "hunter2"],
                                            then: "loginSucceeded", catch: "loginFailed", options: .init(timeout: 10)))])
        #expect(s.json == ["email": " ada@example.com ", "password": "hunter2", "isSubmitting": true, "error": .null])
        #expect(s.viewModel["canSubmit"] == false)
        // A second tap while the login is in flight: nothing.
        #expect(try NotesDocuments.send(&s, #"{"type": "submit"}"#) == [])

        let pushed = try NotesDocuments.send(&s, #"{"type": "loginSucceeded", "payload": {"user": {"email": "ada@example.com"}}}"#)
        #expect(pushed == [.route(.push("notes/list", args: ["user": ["email": "ada@example.com"]]))])
        #expect(s.json == ["email": " ada@example.com ", "password": "", "isSubmitting": false, "error": .null])
    }

    @Test("notes/login: a failure shows why, a message before a code")
    func loginFailed() throws {
        var s = try NotesDocuments.scene("login").restore(state: ["email": "ada@example.com", "password": "pw",
                                                                  "isSubmitting": true, "error": .null])
        try NotesDocuments.send(&s, #"{"type": "loginFailed", "payload": {"code": "timeout"}, "error": true}"#)
        #expect(s.json == ["email": "ada@example.com", "password": "pw", "isSubmitting": false,
                           "error": "Login failed: the service did not answer in time"])
        try NotesDocuments.send(&s, #"{"type": "loginFailed", "payload": {"code": "denied", "message": "nope"}, "error": true}"#)
        #expect(s.viewModel["error"] == "Login failed: nope")
        try NotesDocuments.send(&s, #"{"type": "loginFailed", "payload": {"code": "denied"}, "error": true}"#)
        #expect(s.viewModel["error"] == "Login failed (denied)")
    }

    @Test("notes/list: load emits store.list, loaded takes the notes in id order and skips what is not a note")
    func listLoad() throws {
        var s = try NotesDocuments.scene("list").open(args: ["user": ["email": "ada@example.com"]])
        // Its own part: the runtime adds its rows' view models as "rows".
        #expect(s.viewModel == ["user": "ada@example.com", "shown": [], "isLoading": false, "canCreate": false,
                                "placeholder": "Loading…", "error": .null, "query": ""])
        #expect(s.childSlots == [ChildSlot("rows", scene: "notes/row", kind: .keyed,
                                           outputs: ["open": "rowOpened", "renamed": "rowRenamed", "deleted": "rowDeleted"],
                                           argsAction: "noteChanged")])

        let load = try NotesDocuments.send(&s, #"{"type": "load"}"#)
        #expect(load == [.effect(Effect(service: "store", op: "list", args: ["prefix": "note/", "limit": 10000],
                                        then: "loaded", catch: "loadFailed", options: .init(id: "load", policy: .latest, restore: .reissue)))])
        #expect(s.json["isLoading"] == true)

        // The store answers in key order: "note/10" before "note/2".
        let loaded = try NotesDocuments.send(&s, """
            {"type": "loaded", "payload": {"items": [
              {"key": "note/10", "value": {"id": 10, "title": "Ten", "body": "  first line\\nsecond line"}},
              {"key": "note/2", "value": {"id": 2, "title": "Call the bank", "body": ""}},
              {"key": "note/3", "value": "not a note"},
              {"key": "note/9", "value": {"id": 2, "title": "under another key", "body": ""}}]}}
            """)
        #expect(loaded == [])
        #expect(s.json == ["user": ["email": "ada@example.com"],
                           "notes": [["id": 2, "title": "Call the bank", "body": ""],
                                     ["id": 10, "title": "Ten", "body": "  first line\nsecond line"]],
                           "nextID": 11, "hasLoaded": true, "isTruncated": false, "isLoading": false, "unreadable": 2,
                           "error": .null, "query": ""])
        #expect(s.viewModel == ["user": "ada@example.com", "shown": [2, 10],
                                "isLoading": false, "canCreate": true, "placeholder": .null,
                                "error": "2 stored notes could not be read", "query": ""])
        // A row per note, keyed by its id, its args the note.
        #expect(try s.children() == [Child.keyed("rows", key: 2, args: ["id": 2, "title": "Call the bank", "body": ""]),
                                     Child.keyed("rows", key: 10, args: ["id": 10, "title": "Ten", "body": "  first line\nsecond line"])])

        let pushed = try NotesDocuments.send(&s, #"{"type": "newNote"}"#)
        #expect(pushed == [.route(.push("notes/editor", args: ["note": ["id": 11, "title": "", "body": ""], "isNew": true],
                                        onResult: "editorClosed"))])
        #expect(s.json["nextID"] == 12)
    }

    @Test("notes/list: what the editor saved or deleted comes back as editorClosed")
    func listEditorClosed() throws {
        var s = try NotesDocuments.scene("list").restore(state: [
            "user": ["email": "ada@example.com"], "notes": [["id": 1, "title": "Groceries", "body": "Milk\nEggs"]],
            "nextID": 2, "hasLoaded": true, "isTruncated": false, "isLoading": false, "unreadable": 0, "error": .null,
            "query": "",
        ])
        try NotesDocuments.send(&s, #"{"type": "editorClosed", "payload": {"saved": {"id": 3, "title": "New", "body": ""}}}"#)
        try NotesDocuments.send(&s, #"{"type": "editorClosed", "payload": {"saved": {"id": 1, "title": "Shopping", "body": ""}}}"#)
        #expect(s.json["notes"] == [["id": 1, "title": "Shopping", "body": ""], ["id": 3, "title": "New", "body": ""]])
        #expect(s.json["nextID"] == 4)
        try NotesDocuments.send(&s, #"{"type": "editorClosed", "payload": {"deleted": 1}}"#)
        #expect(s.viewModel["shown"] == [3])
    }

    @Test("notes/list: searchChanged keeps the query; the view shows the notes whose title or body holds it, ignoring case")
    func listSearch() throws {
        var s = try NotesDocuments.scene("list").restore(state: [
            "user": ["email": "ada@example.com"],
            "notes": [["id": 1, "title": "Groceries", "body": "Milk\nEggs"], ["id": 2, "title": "Call the bank", "body": ""]],
            "nextID": 3, "hasLoaded": true, "isTruncated": false, "isLoading": false, "unreadable": 0, "error": .null,
            "query": "",
        ])
        #expect(try NotesDocuments.send(&s, #"{"type": "searchChanged", "payload": "mILK"}"#) == [])
        #expect(s.json["query"] == "mILK")
        #expect(s.viewModel["shown"] == [1])
        #expect(s.viewModel["query"] == "mILK")
        try NotesDocuments.send(&s, #"{"type": "searchChanged", "payload": "kiwi"}"#)
        #expect(s.viewModel["shown"] == [])
        #expect(s.viewModel["placeholder"] == "No notes match “kiwi”")
        // The rows follow the notes, not the query.
        #expect(try s.children().map(\.key) == [1, 2])
        #expect(s.json["notes"] == [["id": 1, "title": "Groceries", "body": "Milk\nEggs"], ["id": 2, "title": "Call the bank", "body": ""]])
    }

    @Test("notes/editor: the title is required and at most 200 characters, then save emits store.put and saved pops")
    func editorSave() throws {
        var s = try NotesDocuments.scene("editor").open(args: ["note": ["id": 3, "title": "", "body": ""], "isNew": true])
        #expect(s.json == ["note": ["id": 3, "title": "", "body": ""], "original": ["id": 3, "title": "", "body": ""],
                           "isNew": true, "busy": .null, "error": .null])
        #expect(s.viewModel["titleError"] == "A title is required")
        #expect(try NotesDocuments.send(&s, #"{"type": "save"}"#) == [])
        #expect(s.json["error"] == "A title is required")

        try NotesDocuments.send(&s, #"{"type": "titleChanged", "payload": "\#(String(repeating: "x", count: 201))"}"#)
        #expect(s.json["error"] == .null)
        #expect(s.viewModel["titleError"] == "The title is too long (201 characters; at most 200)")
        #expect(s.viewModel["titleCounter"] == "201/200")
        #expect(try NotesDocuments.send(&s, #"{"type": "save"}"#) == [])
        #expect(s.json["error"] == "The title is too long (201 characters; at most 200)")

        try NotesDocuments.send(&s, #"{"type": "titleChanged", "payload": "  Groceries "}"#)
        try NotesDocuments.send(&s, #"{"type": "bodyChanged", "payload": "Milk"}"#)
        #expect(s.viewModel == ["heading": "New note", "title": "  Groceries ", "body": "Milk", "titleError": .null,
                                "titleCounter": "9/200", "hasChanges": true, "canSave": true, "canDelete": true,
                                "isSaving": false, "isDeleting": false, "error": .null])
        let saved: JSON = ["id": 3, "title": "Groceries", "body": "Milk"]
        let put = try NotesDocuments.send(&s, #"{"type": "save"}"#)
        #expect(put == [.effect(Effect(service: "store", op: "put", args: ["key": "note/3", "value": saved],
                                       then: "saved", catch: "saveFailed"))])
        #expect(s.json == ["note": saved, "original": ["id": 3, "title": "", "body": ""], "isNew": true, "busy": "saving",
                           "error": .null])
        // Frozen while the write is in flight.
        #expect(try NotesDocuments.send(&s, #"{"type": "titleChanged", "payload": "Other"}"#) == [])
        #expect(try NotesDocuments.send(&s, #"{"type": "cancel"}"#) == [])
        #expect(s.json["note"] == saved)

        let popped = try NotesDocuments.send(&s, #"{"type": "saved", "payload": {"key": "note/3"}}"#)
        #expect(popped == [.route(.pop(result: ["saved": saved]))])
        #expect(s.json == ["note": saved, "original": saved, "isNew": false, "busy": .null, "error": .null])
        #expect(s.viewModel["heading"] == "Edit note")
        #expect(s.viewModel["hasChanges"] == false)
    }

    @Test("notes/editor: delete emits store.delete and deleted pops with the id; a new note just closes")
    func editorDelete() throws {
        let bank: JSON = ["id": 2, "title": "Call the bank", "body": ""]
        var s = try NotesDocuments.scene("editor").open(args: ["note": bank])
        let delete = try NotesDocuments.send(&s, #"{"type": "delete"}"#)
        #expect(delete == [.effect(Effect(service: "store", op: "delete", args: ["key": "note/2"],
                                          then: "deleted", catch: "deleteFailed"))])
        #expect(s.viewModel["isDeleting"] == true)
        #expect(try NotesDocuments.send(&s, #"{"type": "deleted"}"#) == [.route(.pop(result: ["deleted": 2]))])

        var fresh = try NotesDocuments.scene("editor").open(args: ["note": ["id": 9, "title": "", "body": ""], "isNew": true])
        #expect(try NotesDocuments.send(&fresh, #"{"type": "delete"}"#) == [.route(.pop())])
        #expect(fresh.json["busy"] == .null)
    }
}
