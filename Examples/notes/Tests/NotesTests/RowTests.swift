@testable import Notes
import Testing
import YaiaKit
import YaiaTesting

/// A row is tested alone: its outputs to the list are values in `said`.
@Suite("notes/row")
struct RowTests {
    @Test("a rename is checked, written by the row's own store.put, then told to the list")
    func rename() throws {
        var test = try SceneTest(RowState.self, args: bank.json)
        test.expectViewModel(.init(id: 2, title: "Call the bank", preview: "", draft: nil, titleError: nil, confirming: false,
                                   isSaving: false, isDeleting: false, error: nil))
        test.send(.startRename) { $0.draft = "Call the bank" }
        test.send(.draftChanged("   ")) { $0.draft = "   " }
        test.expectViewModel { $0.titleError == "A title is required" }
        test.send(.commitRename) { $0.error = "A title is required" }
        test.send(.draftChanged(" Bank ")) {
            $0.draft = " Bank "
            $0.error = nil
        }
        test.send(.commitRename) {
            $0.draft = "Bank"
            $0.busy = .saving
        }
        let renamed = Note(id: 2, title: "Bank")
        let put = test.receiveEffect(Effect(service: "store", op: "put", args: ["key": "note/2", "value": renamed.json],
                                            then: "saved", catch: "saveFailed"))
        // Frozen while the write is in flight: nothing to open, nothing to type.
        test.send(.draftChanged("Other"))
        test.send(.open)
        #expect(test.said.isEmpty)
        test.resolve(put, with: .success(["key": "note/2"])) {
            $0.note = renamed
            $0.draft = nil
            $0.busy = nil
        }
        #expect(test.said == [.output(Action("renamed", payload: renamed.json))])
        test.finish()
    }

    @Test("the same title writes nothing; a cancel drops the draft; a failed write says why")
    func renameEdges() {
        var test = SceneTest(RowState(note: bank))
        test.send(.draftChanged("ignored"))
        test.send(.startRename) { $0.draft = "Call the bank" }
        test.send(.commitRename) { $0.draft = nil }
        test.send(.startRename) { $0.draft = "Call the bank" }
        test.send(.draftChanged("x")) { $0.draft = "x" }
        test.send(.cancelRename) { $0.draft = nil }
        test.send(.startRename) { $0.draft = "Call the bank" }
        test.send(.draftChanged("Bank")) { $0.draft = "Bank" }
        test.send(.commitRename) { $0.busy = .saving }
        let put = test.receiveEffect(service: "store", op: "put")
        test.resolve(put, with: .failure(["code": "sqlite_error"])) {
            $0.busy = nil
            $0.error = "Could not rename the note (sqlite_error)"
        }
        #expect(test.said.isEmpty)
        test.finish()
    }

    @Test("delete asks first, then the row's own store.delete, then the list is told")
    func delete() {
        var test = SceneTest(RowState(note: bank))
        test.send(.confirmDelete)
        test.send(.askDelete) { $0.confirming = true }
        test.send(.cancelDelete) { $0.confirming = false }
        test.send(.askDelete) { $0.confirming = true }
        test.expectViewModel { $0.confirming }
        test.send(.confirmDelete) {
            $0.confirming = false
            $0.busy = .deleting
        }
        let delete = test.receiveEffect(Effect(service: "store", op: "delete", args: ["key": "note/2"], then: "deleted", catch: "deleteFailed"))
        test.expectViewModel { $0.isDeleting }
        test.resolve(delete, with: .success(["key": "note/2", "deleted": true])) { $0.busy = nil }
        #expect(test.said == [.output(Action("deleted", payload: 2))])
        test.finish()
    }

    @Test("open is an output the list turns into the editor; new args from the list keep a draft")
    func openAndArgs() {
        var test = SceneTest(RowState(note: groceries))
        test.expectViewModel { $0.preview == "Milk" }
        test.send(.open)
        #expect(test.said == [.output(Action("open", payload: 1))])
        test.send(.startRename) { $0.draft = "Groceries" }
        // While renaming, open is for the text field, not the editor.
        test.send(.open)
        #expect(test.said.count == 1)
        let edited = Note(id: 1, title: "Food", body: "Bread")
        test.send("noteChanged", payload: edited.json) { $0.note = edited }
        test.expectViewModel { $0.title == "Food" && $0.draft == "Groceries" && $0.preview == "Bread" }
        test.finish()
    }

    @Test("open arguments are a note; the state survives its JSON form")
    func argsAndSnapshot() {
        #expect(thrown { try RowState(args: ["id": 1, "title": 2, "body": ""]) }?.at == "/title")
        var state = RowState(note: bank)
        state.draft = "B"
        state.busy = .saving
        #expect(roundTrips(state))
    }
}
