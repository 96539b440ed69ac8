@testable import Notes
import Testing
import YaiaKit
import YaiaTesting

@Suite("notes/editor")
struct EditorTests {
    @Test("a new note: edit, save to the store, pop with the saved note")
    func saveNew() throws {
        var test = try SceneTest(EditorState.self, args: ["note": ["id": 3, "title": "", "body": ""], "isNew": true])
        test.expectViewModel(.init(heading: "New note", title: "", body: "", titleError: "A title is required",
                                   titleCounter: "0/200", hasChanges: false, canSave: false, canDelete: true,
                                   isSaving: false, isDeleting: false, error: nil))
        test.send(.save) { $0.error = "A title is required" }
        // An edit clears the error the last save left.
        test.send(.titleChanged("  Groceries ")) {
            $0.note.title = "  Groceries "
            $0.error = nil
        }
        test.send(.bodyChanged("Milk\nEggs")) { $0.note.body = "Milk\nEggs" }
        test.expectViewModel { $0.canSave && $0.hasChanges && $0.titleCounter == "9/200" && $0.titleError == nil }
        test.send(.save) {
            $0.note.title = "Groceries"
            $0.busy = .saving
            $0.error = nil
        }
        let saved = Note(id: 3, title: "Groceries", body: "Milk\nEggs")
        let put = test.receiveEffect(Effect(service: "store", op: "put", args: ["key": "note/3", "value": saved.json],
                                            then: "saved", catch: "saveFailed"))
        test.expectViewModel { $0.isSaving && !$0.canSave && !$0.canDelete }
        // The form is frozen while the write is in flight.
        test.send(.titleChanged("Other"))
        test.send(.cancel)
        test.resolve(put, with: .success(["key": "note/3"])) {
            $0.busy = nil
            $0.isNew = false
            $0.original = saved
        }
        test.expectRoute(.pop(result: ["saved": ["id": 3, "title": "Groceries", "body": "Milk\nEggs"]]))
        test.finish()
    }

    @Test("the title is required and at most 200 characters")
    func titleRules() {
        var test = SceneTest(EditorState(note: bank, isNew: false))
        test.send(.titleChanged("   ")) { $0.note.title = "   " }
        test.expectViewModel { $0.titleError == "A title is required" && !$0.canSave }
        let long = String(repeating: "ü", count: 201)
        test.send(.titleChanged(long)) { $0.note.title = long }
        test.expectViewModel { $0.titleError == "The title is too long (201 characters; at most 200)" && $0.titleCounter == "201/200" }
        test.send(.save) { $0.error = "The title is too long (201 characters; at most 200)" }
        let limit = String(repeating: "ü", count: 200)
        test.send(.titleChanged(limit)) {
            $0.note.title = limit
            $0.error = nil
        }
        test.expectViewModel { $0.titleError == nil && $0.canSave }
        test.send(.save) { $0.busy = .saving }
        let saved = Note(id: 2, title: limit)
        let put = test.receiveEffect(service: "store", op: "put", args: ["key": "note/2", "value": saved.json])
        test.resolve(put, with: .success(["key": "note/2"])) {
            $0.busy = nil
            $0.original = saved
        }
        test.expectRoute(.pop(result: ["saved": saved.json]))
        test.finish()
    }

    @Test("a failed save keeps the edits and shows why")
    func saveFails() {
        var test = SceneTest(EditorState(note: bank, isNew: false))
        test.send(.bodyChanged("today")) { $0.note.body = "today" }
        test.send(.save) { $0.busy = .saving }
        let put = test.receiveEffect(service: "store", op: "put")
        test.resolve(put, with: .failure(["code": "sqlite_error", "message": "database is locked"])) {
            $0.busy = nil
            $0.error = "Could not save the note: database is locked"
        }
        test.expectViewModel { $0.canSave && $0.hasChanges && $0.error != nil }
        test.send("saveFailed", payload: ["code": "timeout"]) { $0.error = "Could not save the note: the service did not answer in time" }
        test.finish()
    }

    @Test("delete removes the note from the store and pops with its id")
    func delete() {
        var test = SceneTest(EditorState(note: bank, isNew: false))
        test.send(.delete) { $0.busy = .deleting }
        let delete = test.receiveEffect(Effect(service: "store", op: "delete", args: ["key": "note/2"],
                                               then: "deleted", catch: "deleteFailed"))
        test.expectViewModel { $0.isDeleting && !$0.canSave }
        test.resolve(delete, with: .success(["key": "note/2", "deleted": true])) { $0.busy = nil }
        test.expectRoute(.pop(result: ["deleted": 2]))
        test.finish()
    }

    @Test("a failed delete shows why; deleting a note never saved just closes the editor")
    func deleteFailsOrNew() {
        var test = SceneTest(EditorState(note: bank, isNew: false))
        test.send(.delete) { $0.busy = .deleting }
        let delete = test.receiveEffect(service: "store", op: "delete")
        test.resolve(delete, with: .failure(["code": "sqlite_error"])) {
            $0.busy = nil
            $0.error = "Could not delete the note (sqlite_error)"
        }
        test.finish()

        var fresh = SceneTest(EditorState(note: Note(id: 9), isNew: true))
        fresh.send(.titleChanged("Draft")) { $0.note.title = "Draft" }
        fresh.send(.delete)
        fresh.expectRoute(.pop())
        fresh.finish()
    }

    @Test("cancel pops without a result: the list keeps what it had")
    func cancel() {
        var test = SceneTest(EditorState(note: bank, isNew: false))
        test.send(.titleChanged("Changed")) { $0.note.title = "Changed" }
        test.send(.cancel)
        test.expectRoute(.pop())
        test.finish()
    }

    @Test("open arguments: a note, and whether it is new")
    func args() throws {
        #expect(try EditorState(args: ["note": bank.json]) == EditorState(note: bank, isNew: false))
        #expect(try EditorState(args: ["note": bank.json, "isNew": true]).isNew)
        #expect(thrown { try EditorState(args: [:]) }?.at == "/note")
        #expect(thrown { try EditorState(args: ["note": ["id": "2", "title": "", "body": ""]]) }?.at == "/note/id")
    }

    @Test("the state survives its JSON form, in flight or not")
    func snapshot() {
        var state = EditorState(note: bank, isNew: true)
        #expect(roundTrips(state))
        state.busy = .saving
        state.error = "x"
        #expect(roundTrips(state))
        #expect(state.json["busy"] == "saving")
    }
}
