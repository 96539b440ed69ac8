import YaiaKit

/// The user's notes, loaded from the `store` service, each shown by a row,
/// a child scene (notes/row) that renames and deletes its note itself and
/// tells the list. Opening one, or starting a new one, pushes notes/editor;
/// what the editor saved or deleted comes back as `editorClosed`.
public struct ListState: SceneState, Codable {
    public static let name = "notes/list"
    /// `store.list` answers at most this many: the store's maximum (its
    /// default is 100).
    public static let limit = 10000

    public var user: User
    /// In id order, which is the order they were created in. A KeyedList,
    /// so that a change to one note costs one note and one row, however
    /// many there are (docs/scenes.md, on lists).
    public var notes: KeyedList<Entry> = []
    /// The id the next new note gets. Ids come from here, never from a
    /// clock or a random number: the reducer stays a function of its inputs.
    public var nextID = 1
    /// Whether a load has completed: until then the used ids are unknown,
    /// so no new note can be started.
    public var hasLoaded = false
    /// The last load filled the limit: there may be more notes, with ids
    /// this list has not seen, so none is handed out.
    public var isTruncated = false
    public var isLoading = false
    /// Stored values under "note/" that are not notes: left alone, counted.
    public var unreadable = 0
    public var error: String?
    /// What the search field holds: the view shows the notes whose title
    /// or body contains it, ignoring case. The notes themselves stay whole.
    public var query = ""

    public init(user: User) { self.user = user }

    /// One row per note, keyed by its id, its args the note. The rows follow
    /// the notes, not the search: a keystroke opens and closes no scene.
    public static var childSlots: [ChildSlot] {
        [ChildSlot("rows", scene: RowState.name, kind: .keyed,
                   outputs: ["open": "rowOpened", "renamed": "rowRenamed", "deleted": "rowDeleted"], argsAction: "noteChanged")]
    }

    /// Kept with the notes (KeyedList.children): a keystroke, which leaves
    /// them as they are, makes no child and compares none.
    public var children: [Child] {
        notes.children("rows") { entry in (.int(Int64(entry.id)), entry.args) }
    }

    /// Open arguments: `{"user": {"email": ...}}`, as the login pushes them.
    public struct Args: Codable, Sendable, JSONRepresentable {
        public var user: User
    }

    public init(args: JSON) throws(YaiaError) {
        self.init(user: try args.decode(Args.self, code: .badArgs).user)
    }

    /// One entry of `store.list`'s result. The value is read as a note in
    /// the reducer, so that one bad entry does not refuse the whole list.
    public struct Stored: Decodable, Equatable, Sendable {
        public var key: String
        public var value: JSON

        public init(key: String, value: JSON) {
            self.key = key
            self.value = value
        }
    }

    public enum Action: SceneAction, Equatable, Decodable {
        /// Sent by the UI when the list appears, and to refresh it.
        case load
        /// `store.list`'s result: `{"items": [{"key", "value"}, ...]}`.
        case loaded(items: [Stored])
        case loadFailed(code: String?, message: String?)
        /// A note's id.
        case open(Int)
        case newNote
        /// The editor's result: `{"saved": NOTE}` or `{"deleted": ID}`.
        case editorClosed(saved: Note?, deleted: Int?)
        /// The search field's text, as typed.
        case searchChanged(String)
        /// A row's outputs: `{"key": ID, "output": ...}`.
        case rowOpened(key: Int, output: Int?)
        case rowRenamed(key: Int, output: Note)
        case rowDeleted(key: Int, output: Int?)
        case logout
    }

    /// Its own part; the runtime adds the rows' view models as "rows", one
    /// per note in id order.
    public struct ViewModel: JSONRepresentable, Encodable, Equatable, Sendable {
        public var user: String
        /// The ids of the notes the search matches (all of them when it is
        /// empty), in id order: the rows to show.
        public var shown: [Int]
        public var isLoading: Bool
        public var canCreate: Bool
        /// What to show instead of an empty list, or nil.
        public var placeholder: String?
        public var error: String?
        public var query = ""
    }

    /// Whether the bytes of `needle` occur in `haystack`. By hand: the
    /// generic Collection search is some fifty times slower, which 10,000
    /// notes searched on every keystroke would show.
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        var haystack = haystack, needle = needle
        return haystack.withUTF8 { h in
            needle.withUTF8 { n in
                guard let first = n.first else { return true }
                guard h.count >= n.count else { return false }
                var i = 0
                while i <= h.count - n.count {
                    if h[i] == first {
                        var k = 1
                        while k < n.count && h[i + k] == n[k] { k += 1 }
                        if k == n.count { return true }
                    }
                    i += 1
                }
                return false
            }
        }
    }

    public var viewModel: ViewModel {
        let needle = query.lowercased()
        // The rows are the children's; a keystroke only picks their ids.
        var shown: [Int] = []
        shown.reserveCapacity(notes.count)
        for entry in notes where entry.matches(needle) { shown.append(entry.id) }
        var placeholder: String?
        if notes.isEmpty {
            placeholder = hasLoaded ? "No notes yet" : "Loading…"
        } else if shown.isEmpty {
            placeholder = "No notes match “\(query)”"
        }
        var error = self.error
        if error == nil, unreadable > 0 {
            error = unreadable == 1 ? "1 stored note could not be read" : "\(unreadable) stored notes could not be read"
        }
        return ViewModel(user: user.email,
                         shown: shown,
                         isLoading: isLoading, canCreate: hasLoaded && !isTruncated, placeholder: placeholder, error: error,
                         query: query)
    }

    static func preview(_ body: String, length: Int = 80) -> String {
        let text = body.trimmed
        if let end = asciiLineEnd(text) {
            // The same cut, without segmenting Characters: in ASCII a byte is one.
            let bytes = text.utf8
            return end <= length ? String(decoding: bytes.prefix(end), as: UTF8.self)
                : String(decoding: bytes.prefix(length - 1), as: UTF8.self) + "…"
        }
        let line = text.prefix { !$0.isNewline }
        return line.count <= length ? String(line) : String(line.prefix(length - 1)) + "…"
    }

    /// The bytes of the first line when it is ASCII up to its break, else nil.
    static func asciiLineEnd(_ text: String) -> Int? {
        var end = 0
        for byte in text.utf8 {
            if byte >= 0x80 { return nil }
            if byte >= 0x0A && byte <= 0x0D { return end }  // \n, \v, \f, \r
            end += 1
        }
        return end
    }

    public mutating func reduce(_ action: Action) -> [Command] {
        switch action {
        case .load:
            isLoading = true
            error = nil
            return [.effect(Effect(service: "store", op: "list", args: ["prefix": .string(Note.prefix), "limit": .int(Int64(ListState.limit))],
                                   then: "loaded", catch: "loadFailed", options: .init(id: "load", policy: .latest, restore: .reissue)))]
        case .loaded(let items):
            isLoading = false
            hasLoaded = true
            isTruncated = items.count >= ListState.limit
            var read: [Entry] = []
            for item in items {
                if let note = try? item.value.decode(Note.self), note.key == item.key { read.append(Entry(note)) }
            }
            read.sort { $0.id < $1.id }
            notes = KeyedList(read)
            unreadable = items.count - notes.count
            nextID = max(nextID, (notes.last?.id ?? 0) + 1)
            return []
        case .loadFailed(let code, let message):
            isLoading = false
            error = failureText("Could not load your notes", code: code, message: message)
            return []
        case .open(let id), .rowOpened(let id, _):
            guard let note = notes[id: id]?.note else {
                error = "There is no note \(id)"
                return []
            }
            error = nil
            return [.route(.push(EditorState.name, args: EditorState.Args(note: note, isNew: false).json, onResult: "editorClosed"))]
        case .newNote:
            guard hasLoaded else {
                error = "Wait until your notes have loaded"
                return []
            }
            guard !isTruncated else {
                error = "There are too many notes to add another"
                return []
            }
            let note = Note(id: nextID)
            // Taken even if the editor is cancelled: an id is never handed out twice.
            nextID += 1
            error = nil
            return [.route(.push(EditorState.name, args: EditorState.Args(note: note, isNew: true).json, onResult: "editorClosed"))]
        case .editorClosed(let saved, let deleted):
            if let saved {
                let entry = Entry(saved)
                if !notes.update(entry) { notes.insert(entry, at: place(of: saved.id)) }
                nextID = max(nextID, saved.id + 1)
            }
            if let deleted { notes.remove(id: deleted) }
            return []
        case .searchChanged(let text):
            query = text
            return []
        case .rowRenamed(_, let note):
            _ = notes.update(Entry(note))
            return []
        case .rowDeleted(let id, _):
            notes.remove(id: id)
            return []
        case .logout:
            return [.route(.popToRoot)]
        }
    }

    /// Where a note with `id` goes to keep the list in id order: after the
    /// last note with a smaller id, found by halves.
    func place(of id: Int) -> Int {
        var low = 0, high = notes.count
        while low < high {
            let middle = low + (high - low) / 2
            if notes[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
