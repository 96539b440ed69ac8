import Glibc
import YaiaCore

/// One input to a runtime, as the journal records it.
enum JournalInput {
    case open(scene: String, args: JSON, id: JSON)
    case send(scene: Int64, action: Action)
    case sendFlow(flow: Int64, action: Action)
    case outcome(effect: Int64, Outcome)
    case close(scene: Int64)
    case closeFlow(flow: Int64)
    case start(name: String?, scene: String, args: JSON)
    case popped(flow: Int64, depth: Int)
    case link(flow: Int64, path: [JSON])
    case restore(snapshot: JSON)

    /// The line's members, in key order (so no sorting is needed), with
    /// `seq`, `t` and the digest given; nil for sends, which the journal
    /// writes by hand (`Journal.recordSend`), being the most frequent.
    func line(seq: Int64, time: Int64, digest: String?) -> JSONObject? {
        var m: [JSONObject.Member] = []
        m.reserveCapacity(8)
        func add(_ key: String, _ value: JSON) { m.append(.init(key: key, value: value)) }
        // Keys in byte order: action args depth digest effect error flow id kind name path result scene seq snapshot t
        switch self {
        case .open(let scene, let args, let id):
            add("args", args)
            if let digest { add("digest", .string(digest)) }
            add("id", id)
            add("kind", "open")
            add("scene", .string(scene))
        case .send, .sendFlow:
            return nil
        case .outcome(let effect, let outcome):
            if let digest { add("digest", .string(digest)) }
            add("effect", .int(effect))
            if case .failure(let error) = outcome { add("error", error) }
            add("kind", "outcome")
            if case .success(let result) = outcome { add("result", result) }
        case .close(let scene):
            add("kind", "close")
            add("scene", .int(scene))
        case .closeFlow(let flow):
            add("flow", .int(flow))
            add("kind", "close")
        case .start(let name, let scene, let args):
            add("args", args)
            if let digest { add("digest", .string(digest)) }
            add("kind", "start")
            if let name { add("name", .string(name)) }
            add("scene", .string(scene))
        case .popped(let flow, let depth):
            add("depth", .int(Int64(depth)))
            if let digest { add("digest", .string(digest)) }
            add("flow", .int(flow))
            add("kind", "popped")
        case .link(let flow, let path):
            if let digest { add("digest", .string(digest)) }
            add("flow", .int(flow))
            add("kind", "link")
            add("path", .array(path))
        case .restore(let snapshot):
            add("kind", "restore")
            add("snapshot", snapshot)
        }
        add("seq", .int(seq))
        add("t", .int(time))
        return JSONObject(members: m)
    }
}

/// An append-only record of every input to a runtime, one JSON object a line.
///
/// The first line holds a snapshot; each later line an input (an action, an
/// effect's outcome, a navigation report, a restore) with its seq, time and
/// the digest of the view model it produced. Outputs are not stored: replay
/// recomputes them.
///
/// The sending thread formats each line, under the input lock, into a byte
/// arena, and writes the arena out in 64 KiB chunks: one write(2) per few
/// hundred lines. No other thread is involved on purpose: handing lines (or
/// the objects they are made of) to another core costs more, in cache
/// traffic, than formatting them here. `flush` (journal stop, runtime free,
/// rewind) writes what the arena holds.
final class Journal: @unchecked Sendable {
    static let format = "yaia.journal/1"
    static let chunk = 64 * 1024

    let path: String
    private let fd: Int32
    /// Held while an input is reduced and recorded, so that the journal's
    /// order is the order in which inputs changed the runtime. Recursive: a
    /// service may complete inline, inside a send.
    private let inputLock: UnsafeMutablePointer<pthread_mutex_t>
    // Guarded by the input lock.
    private(set) var seq: Int64 = 0
    private var arena = JSONWriter(capacity: Journal.chunk + 4096)
    private var scratch = JSONWriter()
    // The hot path keeps seq and time as text: seq counts up in place, and
    // the (coarse) time changes every few milliseconds only.
    private var seqText: [UInt8] = []
    private var seqValue: Int64 = 0
    private var timeText: [UInt8] = []
    private var lastTime: Int64 = -1

    private(set) var failure: String?

    init(path: String) throws(YaiaError) {
        fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw YaiaError(.badJournal, "cannot open journal \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
        inputLock = .allocate(capacity: 1)
        inputLock.initialize(to: pthread_mutex_t())
        var attr = pthread_mutexattr_t()
        pthread_mutexattr_init(&attr)
        pthread_mutexattr_settype(&attr, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(inputLock, &attr)
        pthread_mutexattr_destroy(&attr)
    }

    deinit {
        Glibc.close(fd)
        pthread_mutex_destroy(inputLock)
        inputLock.deallocate()
    }

    func lockInput() { pthread_mutex_lock(inputLock) }
    func unlockInput() { pthread_mutex_unlock(inputLock) }

    /// The first line. Caller holds the input lock.
    func begin(snapshot: JSON) {
        arena.write(["format": .string(Journal.format), "kind": "begin", "snapshot": snapshot, "t": .int(Journal.now())])
        arena.raw("\n")
    }

    /// Appends an input's line; the caller holds the input lock.
    func record(_ input: JournalInput, response: JSON?) {
        record(input, digest: response.flatMap { Journal.digestValue(of: $0, scratch: &scratch) })
    }

    /// Appends an input's line with a digest computed by the caller.
    func record(_ input: JournalInput, digest: UInt64?) {
        switch input {
        case .send(let scene, let action): recordSend(.scene(scene), action: action, digest: digest)
        case .sendFlow(let flow, let action): recordSend(.flow(flow), action: action, digest: digest)
        default:
            seq += 1
            guard let line = input.line(seq: seq, time: Journal.now(), digest: digest.map(Digest.hex)) else { return }
            arena.write(.object(line))
            arena.raw("\n")
            if arena.byteCount >= Journal.chunk { writeArena() }
        }
    }

    enum SendTarget {
        case scene(Int64)
        case flow(Int64)
    }

    /// The line of a send, the hot path: written through one pointer, keys in
    /// order. `actionText` is the action exactly as the caller sent it (valid
    /// JSON, already parsed), copied instead of formatted again; without it
    /// the action is formatted. Caller holds the input lock.
    func recordSend(_ target: SendTarget, action: Action, actionText: UnsafeBufferPointer<UInt8>? = nil, digest: UInt64?) {
        guard let actionText else {
            scratch.reset()
            scratch.write(action.json)
            scratch.withBytes { recordSend(target, actionText: $0.bindMemory(to: UInt8.self), digest: digest) }
            return
        }
        recordSend(target, actionText: actionText, digest: digest)
    }

    private func recordSend(_ target: SendTarget, actionText: UnsafeBufferPointer<UInt8>, digest: UInt64?) {
        seq += 1
        let time = Journal.now()
        if time != lastTime {
            lastTime = time
            timeText = Array(String(time).utf8)
        }
        if seqValue + 1 == seq && !seqText.isEmpty {
            Journal.increment(&seqText)
        } else {
            seqText = Array(String(seq).utf8)  // another kind of line came between
        }
        seqValue = seq
        let timeText = self.timeText
        let seqText = self.seqText
        arena.appendDirect(maxCount: actionText.count + 160) { out in
            var p = out
            func put(_ s: StaticString) {
                p.update(from: s.utf8Start, count: s.utf8CodeUnitCount)
                p += s.utf8CodeUnitCount
            }
            func number(_ value: Int64) {
                if value < 0 {
                    p.pointee = UInt8(ascii: "-")
                    p += 1
                }
                var v = value.magnitude
                var digits = 1
                var t = v
                while t >= 10 {
                    t /= 10
                    digits += 1
                }
                var q = p + digits
                p = q
                repeat {
                    q -= 1
                    q.pointee = UInt8(truncatingIfNeeded: v % 10) &+ 48
                    v /= 10
                } while v > 0
            }
            func digits(_ text: [UInt8]) {
                text.withUnsafeBufferPointer { b in
                    if let base = b.baseAddress { p.update(from: base, count: b.count) }
                }
                p += text.count
            }
            put("{\"action\":")
            if let text = actionText.baseAddress {
                p.update(from: text, count: actionText.count)
                // Raw line breaks can only be white space between tokens: spaces keep a line a line.
                for byte: Int32 in [0x0A, 0x0D] {
                    var from = 0
                    while from < actionText.count, let hit = memchr(p + from, byte, actionText.count - from) {
                        let at = UnsafeMutablePointer<UInt8>(OpaquePointer(hit))
                        at.pointee = 0x20
                        from = at - p + 1
                    }
                }
                p += actionText.count
            }
            if let digest {
                put(",\"digest\":\"")
                let hex: StaticString = "0123456789abcdef"
                for i in 0..<16 { p[15 - i] = hex.utf8Start[Int(digest >> (UInt64(i) * 4) & 15)] }
                p += 16
                put("\"")
            }
            // "flow" sorts before "kind", "scene" after it.
            switch target {
            case .flow(let id):
                put(",\"flow\":")
                number(id)
                put(",\"kind\":\"send\"")
            case .scene(let id):
                put(",\"kind\":\"send\",\"scene\":")
                number(id)
            }
            put(",\"seq\":")
            digits(seqText)
            put(",\"t\":")
            digits(timeText)
            put("}\n")
            return p - out
        }
        if arena.byteCount >= Journal.chunk { writeArena() }
    }

    /// Adds one to a decimal number written in ASCII digits.
    static func increment(_ digits: inout [UInt8]) {
        var i = digits.count - 1
        while i >= 0 {
            if digits[i] == UInt8(ascii: "9") {
                digits[i] = UInt8(ascii: "0")
                i -= 1
            } else {
                digits[i] += 1
                return
            }
        }
        digits.insert(UInt8(ascii: "1"), at: 0)
    }

    /// Writes what the arena holds. Caller holds the input lock.
    private func writeArena() {
        guard failure == nil else {
            arena.reset()
            return
        }
        let written = arena.withBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                guard let base = bytes.baseAddress else { return true }
                let n = Glibc.write(fd, base + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
        if !written {
            failure = "writing \(path) failed: \(String(cString: strerror(errno)))"
            Log.write(.error, "journal", failure ?? "")
        }
        arena.reset()
    }

    /// Writes every line recorded so far; true unless the file refused it.
    /// Caller holds the input lock.
    @discardableResult
    func flush() -> Bool {
        writeArena()
        return failure == nil
    }

    /// The last flush. Caller holds the input lock.
    func close() -> Bool { flush() }

    /// Milliseconds since the epoch, from the coarse clock: a line's time
    /// needs no better than the clock tick, and reading it costs 3 ns, not 25.
    static func now() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &t)
        return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec / 1_000_000)
    }

    /// What a journal line checks: the digest of {"stack"?, "viewModel"?} of
    /// a response, written into `scratch` (reused between lines).
    static func digestValue(of response: JSON, scratch: inout JSONWriter) -> UInt64? {
        guard case .object(let o) = response else { return nil }
        // Both keys sort last in a response ("viewModel" after "version"
        // after "stack"): look from the end instead of searching.
        var vm: JSON?
        var stack: JSON?
        for m in o.members.suffix(3).reversed() {
            if m.key == "viewModel" { vm = m.value } else if m.key == "stack" { stack = m.value }
        }
        guard vm != nil || stack != nil else { return nil }
        scratch.reset()
        scratch.raw("{")
        if let stack {
            scratch.raw("\"stack\":")
            scratch.write(stack)
        }
        if let vm {
            scratch.raw(stack == nil ? "\"viewModel\":" : ",\"viewModel\":")
            scratch.write(vm)
        }
        scratch.raw("}")
        return scratch.withBytes(Digest.value)
    }

    /// Writes a response into `w` and answers with its digest, taken from
    /// the very bytes written: the view model (and stack) serialized once,
    /// for the caller and for the journal alike. Caller holds the input lock.
    func writeResponse(_ response: JSON, into w: inout JSONWriter) -> UInt64? {
        guard case .object(let o) = response else {
            w.write(response)
            return nil
        }
        // "viewModel" sorts last in a response; a flow's "stack" (rarer) is
        // digested the general way.
        let members = o.members
        let n = members.count
        guard n > 0, members[n - 1].key == "viewModel", !(n > 2 && members[n - 3].key == "stack") else {
            w.write(response)
            return Journal.digestValue(of: response, scratch: &scratch)
        }
        w.raw("{")
        var vmStart = 0
        for i in 0..<n {
            if i > 0 { w.raw(",") }
            vmStart = w.byteCount
            w.writeString(members[i].key)
            w.raw(":")
            w.write(members[i].value)
        }
        w.raw("}")
        // The digest covers {"viewModel":V}, and the response ends with "viewModel":V}.
        return w.withBytes { bytes in
            var d = Digest.Stream()
            d.feed("{")
            d.feed(UnsafeRawBufferPointer(rebasing: bytes[vmStart...]))
            return d.finish()
        }
    }

    /// The digest a journal line records for a response (replay compares with it).
    static func digest(of response: JSON) -> String? {
        var scratch = JSONWriter()
        return digestValue(of: response, scratch: &scratch).map(Digest.hex)
    }
}

extension Runtime {
    // MARK: recording

    /// Runs one input; with a journal, under its input lock and recorded.
    /// `record` describes the input from its result (nil: nothing to record).
    func input<T>(_ body: () throws(YaiaError) -> T, record: (T) -> (JournalInput, JSON?)?) throws(YaiaError) -> T {
        guard let journal = lock.withLock({ self.journal }) else { return try body() }
        journal.lockInput()
        defer { journal.unlockInput() }
        let result = try body()
        if let (input, response) = record(result) { journal.record(input, response: response) }
        return result
    }

    /// Starts journaling to `path` (truncated), beginning with a snapshot.
    public func startJournal(path: String) throws(YaiaError) -> JSON {
        let journal = try Journal(path: path)
        // The snapshot and the switch happen under the new journal's lock, so
        // no input falls between them.
        journal.lockInput()
        defer { journal.unlockInput() }
        let old = lock.withLock { () -> Journal? in
            let old = self.journal
            self.journal = journal
            return old
        }
        if let old {
            old.lockInput()
            _ = old.close()
            old.unlockInput()
        }
        journal.begin(snapshot: snapshot())
        return ["ok": true, "journal": .string(path)]
    }

    /// Stops journaling; pending lines are written.
    public func stopJournal() -> JSON {
        let old = lock.withLock { () -> Journal? in
            defer { self.journal = nil }
            return self.journal
        }
        guard let old else { return ["ok": true, "journal": .null] }
        old.lockInput()
        defer { old.unlockInput() }
        let written = old.close()
        var o: JSONObject = ["ok": true, "journal": .string(old.path), "inputs": .int(old.seq)]
        if !written, let failure = old.failure { o["warning"] = .string(failure) }
        return .object(o)
    }

    public func flushJournal() -> JSON {
        guard let j = lock.withLock({ journal }) else { return ["ok": true, "journal": .null] }
        j.lockInput()
        defer { j.unlockInput() }
        guard j.flush() else { return YaiaError(.badJournal, j.failure ?? "the journal could not be written").envelope() }
        return ["ok": true, "journal": .string(j.path), "inputs": .int(j.seq)]
    }

    // MARK: replay

    /// Re-runs a journal from its starting snapshot in a scratch runtime with
    /// no services: effect outcomes come from the journal. Every recomputed
    /// view model is checked against its recorded digest; the first
    /// divergence is reported. With `upTo`, stops after that seq and also
    /// answers with the snapshot of the state reached.
    public static func replay(path: String, catalog: SceneCatalog, upTo: Int64? = nil) throws(YaiaError) -> JSON {
        guard let text = readFile(path) else {
            throw YaiaError(.badJournal, "cannot read journal \(path): \(String(cString: strerror(errno)))")
        }
        let scratch = Runtime(catalog: catalog, workers: 1)
        scratch.replaying = true
        scratch.events.close()
        defer { scratch.shutDown() }

        var count: Int64 = 0
        var lineNumber = 0
        var begun = false
        for line in text.split(separator: 0x0A, omittingEmptySubsequences: true) {
            lineNumber += 1
            let record: JSON
            do throws(YaiaError) {
                record = try JSONParser.parse(Array(line))
            } catch {
                throw YaiaError(.badJournal, "line \(lineNumber) of \(path) is not JSON: \(error.message)")
            }
            guard case .object(let o) = record, case .string(let kind)? = o["kind"] else {
                throw YaiaError(.badJournal, "line \(lineNumber) of \(path) has no \"kind\"")
            }
            if !begun {
                guard kind == "begin", o["format"]?.stringValue == Journal.format, let snapshot = o["snapshot"] else {
                    throw YaiaError(.badJournal, "\(path) does not start with a \(Journal.format) begin line")
                }
                _ = try scratch.restore(snapshot, mode: .replay)
                begun = true
                continue
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
        if upTo != nil { result["snapshot"] = scratch.snapshot() }
        return .object(result)
    }

    /// Applies one journal input; answers with the response whose digest is checked.
    private func replay(kind: String, _ o: JSONObject) throws(YaiaError) -> JSON? {
        func action() throws(YaiaError) -> Action {
            guard let a = o["action"] else { throw YaiaError(.badJournal, "a send input needs an \"action\"") }
            return try Action(json: a)
        }
        switch kind {
        case "open":
            let response = try open(try o.requestString("scene"), args: o["args"] ?? [:])
            if let id = o["id"]?.int64Value, response["scene"]?.int64Value != id {
                throw YaiaError(.badJournal, "the scene opened as \(response["scene"]?.int64Value ?? 0), not \(id)")
            }
            return response
        case "send":
            if o["flow"] != nil { return try send(flow: try o.requestInteger("flow"), action: try action()) }
            return try send(scene: try o.requestInteger("scene"), action: try action())
        case "outcome":
            let id = try o.requestInteger("effect")
            let outcome: Outcome
            if let r = o["result"] { outcome = .success(r) } else { outcome = .failure(o["error"] ?? .null) }
            var work = Work()
            let response = complete(effectID: id, outcome: outcome, work: &work)
            run(work)
            return response
        case "close":
            if o["flow"] != nil { try closeFlow(try o.requestInteger("flow")) } else { try close(scene: try o.requestInteger("scene")) }
            return nil
        case "start":
            return try startFlow(name: o["name"]?.stringValue, scene: try o.requestString("scene"), args: o["args"] ?? [:])
        case "popped":
            return try popped(flow: try o.requestInteger("flow"), depth: Int(try o.requestInteger("depth")), version: nil)
        case "link":
            guard case .array(let path)? = o["path"] else { throw YaiaError(.badJournal, "a link input needs a \"path\"") }
            return try link(flow: try o.requestInteger("flow"), path: path)
        case "restore":
            guard let s = o["snapshot"] else { throw YaiaError(.badJournal, "a restore input needs a \"snapshot\"") }
            // As live, with each effect's policy: without services, reissued effects wait.
            _ = try restore(s, mode: .live)
            return nil
        default:
            throw YaiaError(.badJournal, "unknown input kind \"\(kind)\"")
        }
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

/// The whole file, or nil (errno set).
func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            return nil
        }
        if n == 0 { return bytes }
        bytes.append(contentsOf: chunk[0..<n])
    }
}
