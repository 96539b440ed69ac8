import YaiaCore
import YaiaKit

/// A request op (`{"op": NAME, ...}` to `yaia_execute`), declared once:
/// the request path dispatches through it, the config's grants and the
/// "did you mean" of an unknown op read their names from it, and replay
/// applies journal lines through it. Adding an op: a `static let` here,
/// its entry in `all`, its handler, yaia.h's list of requests and docs/abi.md.
struct Op: Sendable {
    /// Answers a request, given as its object; what it throws becomes the envelope.
    typealias Handler = @Sendable (Runtime, JSONObject) throws(YaiaError) -> JSON
    /// Writes the answer to a request, with its tag (nil: none), into a
    /// writer: an answer the runtime makes as text (a send's update) is
    /// then not read back into a tree to be written again.
    typealias Writer = @Sendable (Runtime, JSONObject, JSON?, inout JSONWriter) throws(YaiaError) -> Void
    /// Applies a journal line in a replay; answers with the response whose digest is checked.
    typealias Replayer = @Sendable (Runtime, JSONObject) throws(YaiaError) -> JSON?

    /// How the journal records an op that changes state.
    enum Journaled: Sendable {
        /// As a line of `kind` (the op's name when nil), which replay applies with `replay`.
        case line(kind: String? = nil, replay: Replayer)
        /// As another op's line: a rewind is written as the restore it does.
        case asLineOf(kind: String)
    }

    let name: String
    /// Reaches code, files, services directly or the runtime as a whole:
    /// refused on the request path unless the config grants it.
    let privileged: Bool
    /// nil: the op changes no state a journal records.
    let journal: Journaled?
    let handle: Handler
    /// The op's answer as text, for ops that make it so; `handle` then reads it.
    let write: Writer?

    init(_ name: String, privileged: Bool = false, journal: Journaled? = nil, handle: @escaping Handler) {
        self.name = name
        self.privileged = privileged
        self.journal = journal
        self.handle = handle
        write = nil
    }

    /// An op that writes its answer: its tree is that text, read.
    init(_ name: String, journal: Journaled? = nil, write: @escaping Writer) {
        self.name = name
        privileged = false
        self.journal = journal
        self.write = write
        handle = { r, o throws(YaiaError) in
            var writer = JSONWriter()
            try write(r, o, nil, &writer)
            return try Runtime.tree(of: writer)
        }
    }

    /// The kind of journal line the op's input is written as, if it is journaled.
    var journalKind: String? {
        switch journal {
        case nil: nil
        case .line(let kind, _)?: kind ?? name
        case .asLineOf(let kind)?: kind
        }
    }
}

extension Op {
    static let open = Op("open", journal: .line { r, o throws(YaiaError) in try r.replayOpen(o) }) { r, o throws(YaiaError) in try r.request(open: o) }
    static let send = Op("send", journal: .line { r, o throws(YaiaError) in try r.replaySend(o) }) { r, o, tag, w throws(YaiaError) in
        try r.request(send: o, tag: tag, into: &w)
    }
    static let resolve = Op("resolve", journal: .line(kind: "outcome") { r, o throws(YaiaError) in try r.replayOutcome(o) }) { r, o throws(YaiaError) in
        try r.request(resolve: o)
    }
    static let state = Op("state") { r, o throws(YaiaError) in try r.state(scene: try o.integer("scene", code: .badRequest)) }
    static let view = Op("view") { r, o throws(YaiaError) in try r.view(scene: try o.integer("scene", code: .badRequest)) }
    static let close = Op("close", journal: .line { r, o throws(YaiaError) in try r.replayClose(o) }) { r, o throws(YaiaError) in try r.request(close: o) }
    static let start = Op("start", journal: .line { r, o throws(YaiaError) in try r.replayStart(o) }) { r, o throws(YaiaError) in try r.request(start: o) }
    static let flow = Op("flow") { r, o throws(YaiaError) in try r.describeFlow(try o.integer("flow", code: .badRequest)) }
    static let popped = Op("popped", journal: .line { r, o throws(YaiaError) in try r.replayPopped(o) }) { r, o throws(YaiaError) in try r.request(popped: o) }
    static let link = Op("link", journal: .line { r, o throws(YaiaError) in try r.replayLink(o) }) { r, o throws(YaiaError) in try r.request(link: o) }
    static let scenes = Op("scenes") { r, _ throws(YaiaError) in r.sceneList() }
    static let schema = Op("schema") { r, o throws(YaiaError) in try r.schema(of: try o.string("scene", code: .badRequest)) }
    static let simulate = Op("simulate") { r, o throws(YaiaError) in try r.simulate(o) }
    static let register = Op("register", privileged: true, journal: .line { r, o throws(YaiaError) in try r.replayRegister(o) }) { r, o throws(YaiaError) in
        try r.request(register: o)
    }
    static let limits = Op("limits") { r, _ throws(YaiaError) in r.limitReport() }
    static let logic = Op("logic") { r, o throws(YaiaError) in try r.request(logic: o) }
    static let advance = Op("advance") { r, o throws(YaiaError) in try r.request(advance: o) }
    static let services = Op("services") { r, _ throws(YaiaError) in r.serviceList() }
    static let loadPlugin = Op("load_plugin", privileged: true) { r, o throws(YaiaError) in try r.request(loadPlugin: o) }
    static let snapshot = Op("snapshot", privileged: true) { r, _ throws(YaiaError) in ["ok": true, "snapshot": try r.snapshot()] }
    static let restore = Op("restore", privileged: true, journal: .line { r, o throws(YaiaError) in try r.replayRestore(o) }) { r, o throws(YaiaError) in
        try r.request(restore: o)
    }
    static let journal = Op("journal", privileged: true) { r, o throws(YaiaError) in try r.request(journal: o) }
    static let replay = Op("replay", privileged: true) { r, o throws(YaiaError) in try r.request(replay: o) }
    static let rewind = Op("rewind", privileged: true, journal: .asLineOf(kind: Op.restore.name)) { r, o throws(YaiaError) in
        try r.rewind(to: try o.integer("to", code: .badRequest))
    }
    static let inspect = Op("inspect") { r, o throws(YaiaError) in try r.request(inspect: o) }
    static let bind = Op("bind", privileged: true) { r, o throws(YaiaError) in
        // A library named by its path is a file like any other; a soname is the system's.
        try r.bind(o, at: "", files: .granted(r.grants, at: "/library"))
    }
    static let scenario = Op("scenario") { r, o throws(YaiaError) in try r.scenarioRequest(o) }
    static let scenarioFromJournal = Op("scenario_from_journal", privileged: true) { r, o throws(YaiaError) in
        try r.scenariosFromJournal(path: try o.string("path", code: .badRequest), files: .granted(r.grants, at: "/path"))
    }
    static let expect = Op("expect") { r, o throws(YaiaError) in try r.expectRequest(o) }
    static let perform = Op("perform", privileged: true) { r, o throws(YaiaError) in try r.request(perform: o) }

    /// Every op, in the order yaia.h lists them.
    static let all: [Op] = [open, send, resolve, state, view, close, scenes, schema, limits, advance, simulate, logic,
                            start, flow, popped, link, services, loadPlugin, bind, perform,
                            snapshot, restore, journal, replay, rewind, inspect, register, scenario, scenarioFromJournal, expect]

    /// The ops by name: the request path's one lookup.
    static let named: [String: Op] = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    /// How replay applies each kind of journal line an op writes.
    static let replaying: [String: Replayer] = {
        var table: [String: Replayer] = [:]
        for op in all {
            if case .line(let kind, let replay)? = op.journal { table[kind ?? op.name] = replay }
        }
        return table
    }()

    /// `unknown_op`, with the nearest op's name when the request looks like a typo of one.
    static func unknown(_ name: String) -> YaiaError {
        YaiaError(.unknownOp, "unknown op \"\(name)\"" + Suggestion.hint(name, among: all.lazy.map(\.name)), at: "/op")
    }
}
