import CYaia
import Glibc
import YaiaCore
import YaiaKit

/// Replay and rewind: a journal re-run in a scratch runtime, checked line by line.
extension Runtime {
    /// Re-runs a journal from its starting snapshot in a scratch runtime with
    /// no services: effect outcomes come from the journal. Every recomputed
    /// view model is checked against its recorded digest; the first
    /// divergence is reported. With `upTo`, stops after that seq and also
    /// answers with the snapshot of the state reached.
    /// Lines longer than `maxLine` bytes are refused, as requests beyond
    /// request_bytes are.
    /// One line of a journal: its record and kind. `bad` places a fault on the line.
    static func journalRecord(_ line: [UInt8], maxDepth: Int,
                              bad: (String, String?) -> YaiaError) throws(YaiaError) -> (JSONObject, String) {
        let record: JSON
        do throws(YaiaError) {
            record = try JSONParser.parse(line, maxDepth: maxDepth)
        } catch {
            throw bad("not JSON: \(error.message)", nil)
        }
        guard case .object(let o) = record, case .string(let kind)? = o["kind"] else {
            throw bad("no \"kind\"", "/kind")
        }
        return (o, kind)
    }

    /// Restores a journal's starting snapshot from its first record, which must be its begin line.
    func begin(_ o: JSONObject, kind: String, bad: (String, String?) -> YaiaError) throws(YaiaError) {
        guard kind == "begin", o["format"]?.stringValue == Journal.format, let snapshot = o["snapshot"] else {
            throw bad("a journal starts with a \(Journal.format) begin line", nil)
        }
        do throws(YaiaError) {
            var work = Work()
            defer { run(work) }
            _ = try restore(snapshot, mode: .replay, work: &work)
        } catch {
            throw bad(error.message, "/snapshot" + (error.at ?? ""))
        }
    }

    public static func replay(path: String, catalog: Catalog, upTo: Int64? = nil,
                              maxLine: Int = Limits().requestBytes) throws(YaiaError) -> JSON {
        try replay(path: path, catalog: catalog, upTo: upTo, maxLine: maxLine, files: .host)
    }

    /// `files` says how the journal's file is opened: as the host's, or beneath a request's grant.
    static func replay(path: String, catalog: Catalog, upTo: Int64?, maxLine: Int, files: FileAccess) throws(YaiaError) -> JSON {
        var lines = try JournalLines(path: path, maxLine: maxLine, files: files)
        let path = lines.path
        let scratch = Runtime(catalog: catalog, workers: 1)
        scratch.replaying = true
        scratch.events.close()
        defer { scratch.shutDown() }

        var count: Int64 = 0
        var begun = false
        while let line = try lines.next() {
            if line.isEmpty { continue }
            func bad(_ message: String, at: String? = nil) -> YaiaError {
                YaiaError(.badJournal, "line \(lines.number) of \(path): \(message)", at: at)
            }
            let (o, kind) = try journalRecord(line, maxDepth: Limits.maxTextDepth, bad: bad)
            if !begun {
                try scratch.begin(o, kind: kind, bad: bad)
                begun = true
                continue
            }
            // Ids, seqs and depths are checked as a snapshot's are; the
            // snapshot of a restore input, whole, before it is replayed.
            for key in ["seq", "scene", "flow", "effect", "id", "depth"] {
                guard let v = o[key], key == "seq" || v.isNumber else { continue }
                do throws(YaiaError) {
                    _ = try CheckedSnapshot.counter(v, at: "/" + key, from: key == "depth" ? 0 : 1)
                } catch {
                    throw bad(error.message, at: error.at)
                }
            }
            if kind == Op.restore.name, let snapshot = o["snapshot"] {
                do throws(YaiaError) {
                    _ = try CheckedSnapshot(snapshot, catalog: catalog)
                } catch {
                    throw bad(error.message, at: "/snapshot" + (error.at ?? ""))
                }
            }
            let seq = o["seq"]?.int64Value ?? 0
            if let upTo, seq > upTo { break }
            let response: JSON?
            do throws(YaiaError) {
                response = try scratch.replay(kind: kind, o)
            } catch {
                return ["ok": true, "identical": false, "inputs": .int(count),
                        "divergence": ["seq": .int(seq), "kind": .string(kind), "error": error.json]]
            }
            count += 1
            if let expected = o["digest"]?.stringValue {
                let got = response.flatMap(Journal.digest(of:))
                if got != expected {
                    var d: JSONObject = ["seq": .int(seq), "kind": .string(kind), "expected": .string(expected), "got": JSON(got)]
                    if let scene = response?["scene"] ?? o["scene"] { d["scene"] = scene }
                    if let vm = response?["viewModel"] { d["viewModel"] = vm }
                    return ["ok": true, "identical": false, "inputs": .int(count), "divergence": .object(d)]
                }
            }
        }
        guard begun else { throw YaiaError(.badJournal, "\(path) is empty") }
        var result: JSONObject = ["ok": true, "identical": true, "inputs": .int(count)]
        if upTo != nil { result["snapshot"] = try scratch.snapshot() }
        return .object(result)
    }

    /// Applies one journal input through the op that writes its kind of
    /// line (OpTable.swift); answers with the response whose digest is checked.
    func replay(kind: String, _ o: JSONObject) throws(YaiaError) -> JSON? {
        guard let apply = Op.replaying[kind] else { throw YaiaError(.badJournal, "unknown input kind \"\(kind)\"") }
        return try apply(self, o)
    }

    /// An open line: the scene must open under the id it had.
    func replayOpen(_ o: JSONObject) throws(YaiaError) -> JSON? {
        let response = try open(try o.string("scene", code: .badRequest), args: o["args"] ?? [:], state: o["state"])
        if let id = o["id"]?.int64Value, response["scene"]?.int64Value != id {
            throw YaiaError(.badJournal, "the scene opened as \(response["scene"]?.int64Value ?? 0), not \(id)")
        }
        return response
    }

    /// A send line, to a scene or a flow.
    func replaySend(_ o: JSONObject) throws(YaiaError) -> JSON? {
        func action() throws(YaiaError) -> Action {
            guard let a = o["action"] else { throw YaiaError(.badJournal, "a send input needs an \"action\"") }
            return try Action(json: a)
        }
        if o["flow"] != nil { return try send(flow: try o.integer("flow", code: .badRequest), action: try action()) }
        return try send(scene: try o.integer("scene", code: .badRequest), action: try action())
    }

    /// An outcome line: an effect's result or error, from a resolve or a service.
    func replayOutcome(_ o: JSONObject) throws(YaiaError) -> JSON? {
        let id = try o.integer("effect", code: .badRequest)
        let outcome: Outcome
        if let r = o["result"] { outcome = .success(r) } else { outcome = .failure(o["error"] ?? .null) }
        var writer = JSONWriter()
        try reduce(.complete(effect: id, outcome, answered: true), into: &writer)
        guard writer.byteCount > 0 else { return nil }
        return try Runtime.tree(of: writer)
    }

    /// A close line, of a scene or a flow.
    func replayClose(_ o: JSONObject) throws(YaiaError) -> JSON? {
        if o["flow"] != nil { try closeFlow(try o.integer("flow", code: .badRequest)) } else { try close(scene: try o.integer("scene", code: .badRequest)) }
        return nil
    }

    /// A start line: a flow begun.
    func replayStart(_ o: JSONObject) throws(YaiaError) -> JSON? {
        return try startFlow(name: o["name"]?.stringValue, scene: try o.string("scene", code: .badRequest), args: o["args"] ?? [:])
    }

    /// A popped line: the UI popped a flow by itself.
    func replayPopped(_ o: JSONObject) throws(YaiaError) -> JSON? {
        return try popped(flow: try o.integer("flow", code: .badRequest), depth: Int(try o.integer("depth", code: .badRequest)), version: nil)
    }

    /// A link line: a deep link into a flow.
    func replayLink(_ o: JSONObject) throws(YaiaError) -> JSON? {
        guard case .array(let path)? = o["path"] else { throw YaiaError(.badJournal, "a link input needs a \"path\"") }
        return try link(flow: try o.integer("flow", code: .badRequest), path: path.elements)
    }

    /// A restore line, from a restore or a rewind.
    func replayRestore(_ o: JSONObject) throws(YaiaError) -> JSON? {
        guard let s = o["snapshot"] else { throw YaiaError(.badJournal, "a restore input needs a \"snapshot\"") }
        // As live, with each effect's policy: without services, reissued effects wait.
        var work = Work()
        defer { run(work) }
        _ = try restore(s, mode: .live, work: &work)
        return nil
    }

    /// A register line: a scene document added.
    func replayRegister(_ o: JSONObject) throws(YaiaError) -> JSON? {
        guard let document = o["document"] else { throw YaiaError(.badJournal, "a register input needs a \"document\"") }
        return try register(document: document)
    }

    /// Time travel: the state as it was right after input `seq` of the active
    /// journal, restored in place (and journaled as a restore).
    public func rewind(to seq: Int64) throws(YaiaError) -> JSON {
        guard let journal = lock.withLock({ self.journal }) else {
            throw YaiaError(.badJournal, "rewind needs an active journal")
        }
        journal.lockInput()
        defer { journal.unlockInput() }
        guard seq >= 0, seq <= journal.seq else {
            throw YaiaError(.badRequest, "the journal holds inputs 1 to \(journal.seq); it cannot rewind to \(seq)", at: "/to")
        }
        guard journal.flush() else { throw YaiaError(.badJournal, journal.failure ?? "the journal could not be written") }
        let replayed = try Runtime.replay(path: journal.path, catalog: catalog, upTo: seq)
        guard replayed["identical"] == .bool(true), let snapshot = replayed["snapshot"] else {
            throw YaiaError(.badJournal, "the journal does not replay identically up to \(seq): \(replayed)")
        }
        var result = try restore(snapshot).objectValue ?? [:]
        result["to"] = .int(seq)
        return .object(result)
    }
}

/// A journal's lines, read in 64 KiB chunks: a replay holds one line at a
/// time, never the file.
struct JournalLines: ~Copyable {
    let path: String
    /// The longest line read.
    let maxLine: Int
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`, and how far past it no line
    /// break was found.
    private var start = 0
    private var scanned = 0
    private var atEnd = false
    /// The line last returned, from 1.
    private(set) var number = 0

    init(path: String, maxLine: Int, files: FileAccess = .host) throws(YaiaError) {
        let file = try files.open(path, code: .badJournal)
        self.path = file.path
        self.maxLine = maxLine
        fd = file.fd
    }

    deinit { Glibc.close(fd) }

    /// The next line without its line break, or nil at the end of the file.
    mutating func next() throws(YaiaError) -> [UInt8]? {
        while true {
            if let end = lineBreak() {
                defer {
                    start = end + 1
                    scanned = start
                }
                return try line(start..<end)
            }
            scanned = buffer.count
            if atEnd { return start < buffer.count ? try line(start..<buffer.count) : nil }
            guard buffer.count - start <= maxLine else { throw tooLong(number + 1) }
            try fill()
        }
    }

    /// The index of the first line break at or after `scanned`.
    private func lineBreak() -> Int? {
        buffer.withUnsafeBytes { all -> Int? in
            guard let base = all.baseAddress, scanned < all.count,
                  let hit = memchr(base + scanned, 0x0A, all.count - scanned) else { return nil }
            return UnsafeRawPointer(hit) - base
        }
    }

    private mutating func line(_ range: Range<Int>) throws(YaiaError) -> [UInt8] {
        number += 1
        guard range.count <= maxLine else { throw tooLong(number) }
        return Array(buffer[range])
    }

    private func tooLong(_ line: Int) -> YaiaError {
        YaiaError(.badJournal, "line \(line) of \(path) is longer than request_bytes, \(counted(maxLine, "byte"))")
    }

    /// Drops the lines read and appends the next chunk.
    private mutating func fill() throws(YaiaError) {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
        let chunk = 1 << 16
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress.map { $0 + old }, chunk) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else {
                let reason = String(cString: strerror(errno))
                buffer.removeSubrange(old...)
                throw YaiaError(.badJournal, "cannot read journal \(path): \(reason)")
            }
            buffer.removeSubrange((old + n)...)
            if n == 0 { atEnd = true }
            return
        }
    }
}
