import YaiaKit

extension ListState {
    /// A note as the list holds it, with the text the search looks in: put
    /// in lower case once, when the note enters the list or changes, not on
    /// every keystroke. Its JSON form is the note's alone, and the lower
    /// case is made again when a state is read back, so the state's JSON is
    /// that of an array of notes.
    public struct Entry: Identifiable, Codable, Equatable, Sendable {
        /// Behind one reference: a keystroke walks every entry, and a copy
        /// of an entry then costs one retain instead of one per string
        /// (which, measured, was most of a keystroke's time).
        final class Storage: Sendable {
            let note: Note
            /// The title and the body in lower case, as the search compares them.
            let title: String
            let body: String
            /// The note's row's args, made once: the runtime compares them
            /// with the last ones after every reduction of the list.
            let args: JSON

            init(_ note: Note) {
                self.note = note
                title = note.title.lowercased()
                body = note.body.lowercased()
                args = note.json
            }
        }

        private let storage: Storage

        public init(_ note: Note) { storage = Storage(note) }

        public var note: Note { storage.note }
        public var id: Int { storage.note.id }
        var args: JSON { storage.args }

        public init(from decoder: any Decoder) throws {
            self.init(try Note(from: decoder))
        }

        public func encode(to encoder: any Encoder) throws {
            try storage.note.encode(to: encoder)
        }

        /// The lower case is made from the note.
        public static func == (a: Entry, b: Entry) -> Bool {
            a.storage === b.storage || a.storage.note == b.storage.note
        }

        /// Whether the note matches the search (`needle`, in lower case): a
        /// substring by its bytes, not by its characters, as the document's
        /// `lower` and `in` do.
        func matches(_ needle: String) -> Bool {
            needle.isEmpty || ListState.contains(storage.title, needle) || ListState.contains(storage.body, needle)
        }
    }
}
