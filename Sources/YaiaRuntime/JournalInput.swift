import YaiaCore
import YaiaKit

/// One input to a runtime, as the journal records it.
enum JournalInput {
    /// `state`: opened in that state instead of from `args`.
    case open(scene: String, args: JSON, state: JSON?, id: JSON)
    case outcome(effect: Int64, Outcome)
    case close(scene: Int64)
    case closeFlow(flow: Int64)
    case start(name: String?, scene: String, args: JSON)
    case popped(flow: Int64, depth: Int)
    case link(flow: Int64, path: [JSON])
    case restore(snapshot: JSON)
    case register(document: JSON)

    /// The line's members, in key order (so no sorting is needed), with
    /// `seq`, `t` and the digest given. Sends, the most frequent, are not
    /// here: the journal records them compactly and its thread formats them
    /// (`JournalFile.Formatter`).
    func line(seq: Int64, time: Int64, digest: String?) -> JSONObject {
        var m: [JSONObject.Member] = []
        m.reserveCapacity(8)
        func add(_ key: String, _ value: JSON) { m.append(.init(key: key, value: value)) }
        // Keys in byte order: action args depth digest document effect error flow id kind name path result scene seq snapshot state t
        switch self {
        case .open(let scene, let args, _, let id):
            add("args", args)
            if let digest { add("digest", .string(digest)) }
            add("id", id)
            add("kind", .string(Op.open.name))
            add("scene", .string(scene))
        case .outcome(let effect, let outcome):
            if let digest { add("digest", .string(digest)) }
            add("effect", .int(effect))
            if case .failure(let error) = outcome { add("error", error) }
            add("kind", "outcome")
            if case .success(let result) = outcome { add("result", result) }
        case .close(let scene):
            add("kind", .string(Op.close.name))
            add("scene", .int(scene))
        case .closeFlow(let flow):
            add("flow", .int(flow))
            add("kind", .string(Op.close.name))
        case .start(let name, let scene, let args):
            add("args", args)
            if let digest { add("digest", .string(digest)) }
            add("kind", .string(Op.start.name))
            if let name { add("name", .string(name)) }
            add("scene", .string(scene))
        case .popped(let flow, let depth):
            add("depth", .int(Int64(depth)))
            if let digest { add("digest", .string(digest)) }
            add("flow", .int(flow))
            add("kind", .string(Op.popped.name))
        case .link(let flow, let path):
            if let digest { add("digest", .string(digest)) }
            add("flow", .int(flow))
            add("kind", .string(Op.link.name))
            add("path", .array(path))
        case .restore(let snapshot):
            add("kind", .string(Op.restore.name))
            add("snapshot", snapshot)
        case .register(let document):
            add("document", document)
            add("kind", .string(Op.register.name))
        }
        add("seq", .int(seq))
        if case .open(_, _, let state?, _) = self { add("state", state) }
        add("t", .int(time))
        return JSONObject(members: m)
    }
}
