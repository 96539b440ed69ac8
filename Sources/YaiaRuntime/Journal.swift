import CYaia
import Glibc
import YaiaCore

/// One input to a runtime, as the journal records it.
enum JournalInput {
    /// `state`: opened in that state instead of from `args`.
    case open(scene: String, args: JSON, state: JSON?, id: JSON)
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
    /// records compactly and its thread formats (`JournalFile.Formatter`),
    /// being the most frequent.
    func line(seq: Int64, time: Int64, digest: String?) -> JSONObject? {
        var m: [JSONObject.Member] = []
        m.reserveCapacity(8)
        func add(_ key: String, _ value: JSON) { m.append(.init(key: key, value: value)) }
        // Keys in byte order: action args depth digest effect error flow id kind name path result scene seq snapshot state t
        switch self {
        case .open(let scene, let args, _, let id):
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
        if case .open(_, _, let state?, _) = self { add("state", state) }
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
/// Recording is split so that an input pays as little as it can. Under the
/// input lock, the thread that sent it appends a compact record to a
/// buffer: for a send, the action's text as sent and the digest of the view
/// model's bytes as written for the caller, so nothing is serialized twice.
/// The journal's own thread (`JournalFile`) takes full buffers, formats
/// their records into lines and writes them. Only whole 64 KiB buffers
/// change threads, so the two share no data per input. Other inputs, rarer,
/// are recorded as finished lines.
final class Journal: @unchecked Sendable {
    static let format = "yaia.journal/1"

    let path: String
    private let file: JournalFile
    /// Held while an input is reduced and recorded, so that the journal's
    /// order is the order in which inputs changed the runtime. Recursive: a
    /// service may complete inline, inside a send.
    private let inputLock: UnsafeMutablePointer<pthread_mutex_t>
    // Guarded by the input lock.
    private(set) var seq: Int64 = 0
    private var records = JSONWriter(capacity: JournalFile.chunk + 4096)
    private var scratch = JSONWriter()
    private var actionScratch = JSONWriter()
    /// Set by `close`; a send that fetched the journal before it was
    /// stopped, and reached it after, records nothing.
    private var closed = false
    /// The last line's time: a line is never stamped earlier. (A send reads
    /// the clock before it waits for the input lock, so another thread's
    /// input may be recorded in between with a later time.)
    private var lastTime: Int64 = 0

    init(path: String) throws(YaiaError) {
        file = try JournalFile(path: path)
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
        file.finish()
        pthread_mutex_destroy(inputLock)
        inputLock.deallocate()
    }

    func lockInput() { pthread_mutex_lock(inputLock) }
    func unlockInput() { pthread_mutex_unlock(inputLock) }

    /// Why the file could not be written, if it could not.
    var failure: String? { file.failure }

    /// The first line. Caller holds the input lock.
    func begin(snapshot: JSON) {
        appendLine(["format": .string(Journal.format), "kind": "begin", "snapshot": snapshot, "t": .int(stamp(Journal.now()))])
    }

    /// Appends an input's line; the caller holds the input lock.
    func record(_ input: JournalInput, response: JSON?) {
        guard !closed else { return }
        let digest = response.flatMap { Journal.digestValue(of: $0, scratch: &scratch) }
        switch input {
        case .send(let scene, let action): recordSend(.scene(scene), action: action, digest: digest)
        case .sendFlow(let flow, let action): recordSend(.flow(flow), action: action, digest: digest)
        default:
            seq += 1
            guard let line = input.line(seq: seq, time: stamp(Journal.now()), digest: digest.map(Digest.hex)) else { return }
            appendLine(.object(line))
        }
    }

    private func recordSend(_ target: SendTarget, action: Action, digest: UInt64?, time: Int64 = Journal.now()) {
        actionScratch.reset()
        actionScratch.write(action.json)
        actionScratch.withBytes { appendSend(target, action: $0, digest: digest, time: time) }
    }

    /// The hot path: writes a send's response into `w`, for the caller, and
    /// records the send. `actionText` is the action exactly as the caller
    /// sent it (valid JSON, already parsed), recorded instead of formatted
    /// again; without it, the action is formatted. With `stacked` false, the
    /// response carries no flow stack, so what the digest covers is its last
    /// member (the view model) as written into `w`: the response leaves it
    /// null, and `viewModel` writes it in its place. With `stacked` true, the
    /// response is whole. Caller holds the input lock.
    func recordSend(scene: Int64, action: Action, actionText: UnsafeBufferPointer<UInt8>?, response: JSON, stacked: Bool,
                    time: Int64, into w: inout JSONWriter, viewModel: (inout JSONWriter) -> Void) {
        var digest: UInt64?
        if !stacked, case .object(let o) = response {
            let last = w.writeObject(o)
            w.replaceNullAtEnd(viewModel)
            digest = w.digestOfObject(from: last)
        } else {
            w.write(response)
            digest = Journal.digestValue(of: response, scratch: &scratch)
        }
        if let actionText {
            appendSend(.scene(scene), action: UnsafeRawBufferPointer(actionText), digest: digest, time: time)
        } else {
            recordSend(.scene(scene), action: action, digest: digest, time: time)
        }
    }

    enum SendTarget {
        case scene(Int64)
        case flow(Int64)
    }

    /// Records a send, for `JournalFile` to format.
    private func appendSend(_ target: SendTarget, action: UnsafeRawBufferPointer, digest: UInt64?, time: Int64) {
        guard !closed else { return }
        seq += 1
        let time = stamp(time)
        let body = JournalFile.sendHeader + action.count
        records.appendDirect(maxCount: 8 + body) { p in
            let raw = UnsafeMutableRawPointer(p)
            let (kind, id): (JournalFile.Kind, Int64) = switch target {
            case .scene(let id): (.sceneSend, id)
            case .flow(let id): (.flowSend, id)
            }
            JournalFile.storeHeader(at: raw, length: body, kind: kind, digested: digest != nil)
            raw.storeBytes(of: id, toByteOffset: 8, as: Int64.self)
            raw.storeBytes(of: seq, toByteOffset: 16, as: Int64.self)
            raw.storeBytes(of: time, toByteOffset: 24, as: Int64.self)
            raw.storeBytes(of: digest ?? 0, toByteOffset: 32, as: UInt64.self)
            if let base = action.baseAddress { Journal.copy(base, to: raw + 8 + JournalFile.sendHeader, count: action.count) }
            // Lines a few records ahead, which the journal's thread may have
            // read last (so they sit in another core's cache).
            cyaia_prefetch_for_write(raw + 8 + body + 192)
            cyaia_prefetch_for_write(raw + 8 + body + 256)
            return 8 + body
        }
        if records.byteCount >= JournalFile.chunk { file.ship(&records) }
    }

    /// Copies a short text (an action: tens of bytes) a word at a time,
    /// which beats a call to memcpy at this size.
    @inline(__always)
    static func copy(_ from: UnsafeRawPointer, to: UnsafeMutableRawPointer, count: Int) {
        guard count >= 8 else {
            for i in 0..<count { to.storeBytes(of: from.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self) }
            return
        }
        var i = 0
        while i + 8 < count {
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: i, as: UInt64.self), toByteOffset: i, as: UInt64.self)
            i += 8
        }
        // The last word overlaps the one before: no byte-by-byte tail.
        to.storeBytes(of: from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self), toByteOffset: count - 8, as: UInt64.self)
    }

    /// Appends a finished line.
    private func appendLine(_ line: JSON) {
        guard !closed else { return }
        scratch.reset()
        scratch.write(line)
        scratch.raw("\n")
        scratch.withBytes { text in
            records.appendDirect(maxCount: 8 + text.count) { p in
                let raw = UnsafeMutableRawPointer(p)
                JournalFile.storeHeader(at: raw, length: text.count, kind: .line, digested: false)
                if let base = text.baseAddress { (raw + 8).copyMemory(from: base, byteCount: text.count) }
                return 8 + text.count
            }
        }
        if records.byteCount >= JournalFile.chunk { file.ship(&records) }
    }

    /// Writes every line recorded so far; true unless the file refused it.
    /// Caller holds the input lock.
    @discardableResult
    func flush() -> Bool {
        if records.byteCount > 0 { file.ship(&records) }
        return file.drain()
    }

    /// The last flush; the journal's thread then ends, and its buffers go.
    /// Caller holds the input lock.
    func close() -> Bool {
        guard !closed else { return file.drain() }
        let written = flush()
        file.finish()
        closed = true
        records = JSONWriter(capacity: 0)
        scratch = JSONWriter(capacity: 0)
        actionScratch = JSONWriter(capacity: 0)
        return written
    }

    private func stamp(_ time: Int64) -> Int64 {
        lastTime = max(lastTime, time)
        return lastTime
    }

    /// Milliseconds since the epoch, from the coarse clock: a line's time
    /// needs no better than the clock tick, and reading it costs 5 ns, not 23.
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
        return scratch.withBytes { Digest.value($0) }
    }

    /// The digest a journal line records for a response (replay compares with it).
    static func digest(of response: JSON) -> String? {
        var scratch = JSONWriter()
        return digestValue(of: response, scratch: &scratch).map(Digest.hex)
    }
}

/// A journal's file and the thread that writes it. `Journal` hands over
/// buffers of records; the thread formats them into lines and writes them. A few buffers circulate: when all
/// are waiting to be written, the recording thread waits too, so a slow disk
/// slows inputs down instead of growing memory. Without a thread (none could
/// be started), buffers are written as they are handed over.
final class JournalFile: @unchecked Sendable {
    /// How many bytes of records make a buffer worth handing over.
    static let chunk = 64 * 1024
    static let buffers = 8
    static let wakeAt = 4

    /// What a record holds. Each record is a 4-byte length (of what follows
    /// the 8-byte header), a kind, 3 bytes of padding, then the body.
    enum Kind: UInt8 {
        /// A finished line.
        case line = 0
        /// A send to a scene or to a flow. The header's sixth byte is 1 when
        /// the record has a digest; the body holds the target id, seq, time
        /// and digest (8 bytes each), then the action's text.
        case sceneSend = 1
        case flowSend = 2
    }

    static let sendHeader = 32

    /// A record's 8-byte header: the body's length, the kind, whether a
    /// send has a digest.
    @inline(__always)
    static func storeHeader(at raw: UnsafeMutableRawPointer, length: Int, kind: Kind, digested: Bool) {
        raw.storeBytes(of: UInt32(truncatingIfNeeded: length), toByteOffset: 0, as: UInt32.self)
        raw.storeBytes(of: kind.rawValue, toByteOffset: 4, as: UInt8.self)
        raw.storeBytes(of: digested ? 1 : 0, toByteOffset: 5, as: UInt8.self)
    }

    private final class Buffer: @unchecked Sendable {
        var records = JSONWriter(capacity: JournalFile.chunk + 4096)
    }

    let path: String
    /// Closed as soon as the journal is finished and written: a stopped
    /// journal object may outlive its file (the runtime keeps it, see
    /// `Runtime.pastJournals`). -1 once closed; set under monitor.lock.
    private var fd: Int32
    private let monitor = Monitor()
    // Guarded by monitor.lock.
    private var queued: [Buffer] = []
    private var spare: [Buffer]
    private var busy = false
    /// The thread waits for buffers; it is woken only once `wakeAt` are
    /// queued (or one is needed), as waking a thread costs microseconds: a
    /// system call, and on a VM an interrupt to another CPU.
    private var idle = false
    private var ending = false
    private var threaded = false
    private var failed: String?

    init(path: String) throws(YaiaError) {
        fd = try JournalFile.create(path)
        self.path = path
        spare = (1..<JournalFile.buffers).map { _ in Buffer() }
        let started = startThread { [self] in run() }
        monitor.lock.withLock { threaded = started }
    }

    /// Opens `path` for a new journal, emptied. A file that is not empty
    /// and does not begin as a journal does is refused, not truncated.
    private static func create(_ path: String) throws(YaiaError) -> Int32 {
        let fd = try openRegularFile(path, flags: O_RDWR | O_CREAT, followSymlink: true, code: .badJournal)
        let header = Array("{\"format\":\"\(Journal.format)\",".utf8)
        var head = [UInt8](repeating: 0, count: header.count)
        var got = 0
        while got < head.count {
            let n = head.withUnsafeMutableBytes { Glibc.pread(fd, $0.baseAddress.map { $0 + got }, $0.count - got, off_t(got)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            got += n
        }
        guard got == 0 || head == header else {
            Glibc.close(fd)
            throw YaiaError(.badJournal, "\(path) exists and is not a journal: a journal only replaces an empty file or an earlier journal")
        }
        guard ftruncate(fd, 0) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw YaiaError(.badJournal, "cannot empty journal \(path): \(reason)")
        }
        return fd
    }

    deinit { closeFile() }

    /// Caller holds monitor.lock, or is deinit.
    private func closeFile() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    var failure: String? { monitor.lock.withLock { failed } }

    /// Hands `records` over to be written, leaving it empty.
    func ship(_ records: inout JSONWriter) {
        monitor.lock.withLock {
            guard !ending else {
                records.reset()
                return
            }
            guard threaded else {
                var lines = JSONWriter(capacity: JournalFile.chunk + 4096)
                var formatter = Formatter()
                if failed == nil { failed = write(records, through: &lines, formatter: &formatter) }
                records.reset()
                return
            }
            while spare.isEmpty {
                if idle { monitor.broadcast() }
                _ = monitor.wait(until: .infinity)
            }
            // The buffer written longest ago: the least likely to still be
            // in the other core's cache.
            let buffer = spare.removeFirst()
            records.exchange(with: &buffer.records)
            queued.append(buffer)
            if idle && queued.count >= JournalFile.wakeAt { monitor.broadcast() }
        }
    }

    /// Waits until everything handed over is written; true unless the file
    /// refused some of it.
    func drain() -> Bool {
        monitor.lock.withLock {
            while !queued.isEmpty || busy {
                if idle { monitor.broadcast() }
                _ = monitor.wait(until: .infinity)
            }
            return failed == nil
        }
    }

    /// Lets the thread end once it has written what it holds.
    func finish() {
        monitor.lock.withLock {
            ending = true
            if !threaded {
                spare.removeAll()
                closeFile()
            }
            monitor.broadcast()
            // The thread closes the file once it has written what it holds.
            while fd >= 0 { _ = monitor.wait(until: .infinity) }
        }
    }

    private func run() {
        // A batch thread of the lowest priority: woken on the CPU of the
        // thread that woke it, it neither preempts that thread nor shares
        // its CPU for long, but moves to a free one. Starved outright, it
        // could not be: recording threads wait for buffers it frees, and
        // their CPUs then fall to it. (SCHED_BATCH is 3 on Linux; Glibc
        // declares it under _GNU_SOURCE only. A nice value set with
        // who = 0 is the calling thread's on Linux.)
        var param = sched_param()
        pthread_setschedparam(pthread_self(), 3, &param)
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        // The lines live on this thread's stack, not in this object: written
        // to all the time, they could share a cache line with the recording
        // thread's data otherwise.
        var lines = JSONWriter(capacity: JournalFile.chunk + 4096)
        var formatter = Formatter()
        monitor.lock.withLock {
            while true {
                while queued.isEmpty && !ending {
                    idle = true
                    _ = monitor.wait(until: .infinity)
                    idle = false
                }
                if queued.isEmpty {
                    spare.removeAll()
                    closeFile()
                    monitor.broadcast()
                    return
                }
                let buffer = queued.removeFirst()
                let skip = failed != nil
                busy = true
                pthread_mutex_unlock(monitor.lock.mutex)
                let error = skip ? nil : write(buffer.records, through: &lines, formatter: &formatter)
                buffer.records.reset()
                pthread_mutex_lock(monitor.lock.mutex)
                if failed == nil { failed = error }
                busy = false
                spare.append(buffer)
                monitor.broadcast()  // for a recording thread waiting in ship or drain
            }
        }
    }

    /// Formats records into lines and writes them; answers why that
    /// failed, if it did. After a failure, later records are dropped and
    /// `drain` reports it.
    private func write(_ records: borrowing JSONWriter, through lines: inout JSONWriter, formatter: inout Formatter) -> String? {
        lines.reset()
        records.withBytes { formatter.format($0, into: &lines) }
        let error: String? = lines.withBytes { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let n = Glibc.write(fd, base + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return "writing \(path) failed: \(String(cString: strerror(errno)))"
                }
                offset += n
            }
            return nil
        }
        if let error { Log.write(.error, "journal", error) }
        return error
    }

    /// Turns records into journal lines. A send line is written through
    /// one pointer, with its seq and time kept as text between lines: seq
    /// counts up, and the (coarse) time changes every few milliseconds only.
    struct Formatter: ~Copyable {
        private var seqText = Digits()
        private var seq: Int64 = -1
        private var timeText = Digits()
        private var time: Int64 = -1

        /// Up to 20 decimal digits, ending at the end of `bytes`.
        struct Digits {
            var bytes: (UInt64, UInt64, UInt64) = (0, 0, 0)
            var count = 0

            mutating func set(_ value: Int64) {
                var v = value.magnitude
                count = 0
                withUnsafeMutableBytes(of: &bytes) { b in
                    repeat {
                        count += 1
                        b[24 - count] = UInt8(truncatingIfNeeded: v % 10) &+ 48
                        v /= 10
                    } while v > 0
                    if value < 0 {
                        count += 1
                        b[24 - count] = UInt8(ascii: "-")
                    }
                }
            }

            /// Adds one to a non-negative number.
            mutating func increment() {
                withUnsafeMutableBytes(of: &bytes) { b in
                    var i = 23
                    while i >= 24 - count && b[i] == UInt8(ascii: "9") {
                        b[i] = UInt8(ascii: "0")
                        i -= 1
                    }
                    if i >= 24 - count {
                        b[i] += 1
                    } else {
                        count += 1
                        b[24 - count] = UInt8(ascii: "1")
                    }
                }
            }

            func copy(to p: UnsafeMutablePointer<UInt8>) -> Int {
                withUnsafeBytes(of: bytes) { b in
                    if let base = b.baseAddress { p.update(from: (base + 24 - count).assumingMemoryBound(to: UInt8.self), count: count) }
                }
                return count
            }
        }

        mutating func format(_ records: UnsafeRawBufferPointer, into out: inout JSONWriter) {
            guard let base = records.baseAddress else { return }
            var at = 0
            while at + 8 <= records.count {
                let length = Int(base.loadUnaligned(fromByteOffset: at, as: UInt32.self))
                let kind = Kind(rawValue: base.load(fromByteOffset: at + 4, as: UInt8.self))
                let digested = base.load(fromByteOffset: at + 5, as: UInt8.self) != 0
                let body = base + at + 8
                at += 8 + length
                switch kind {
                case .line: out.append(UnsafeRawBufferPointer(start: body, count: length))
                case .sceneSend, .flowSend:
                    let id = body.loadUnaligned(as: Int64.self)
                    let seq = body.loadUnaligned(fromByteOffset: 8, as: Int64.self)
                    let time = body.loadUnaligned(fromByteOffset: 16, as: Int64.self)
                    let digest = body.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                    if seq == self.seq + 1 && seq > 0 { seqText.increment() } else { seqText.set(seq) }
                    self.seq = seq
                    if time != self.time {
                        timeText.set(time)
                        self.time = time
                    }
                    let action = UnsafeRawBufferPointer(start: body + sendHeader, count: length - sendHeader)
                    out.appendDirect(maxCount: action.count + 160) { out in
                        sendLine(into: out, kind: kind == .flowSend, id: id, action: action, digest: digested ? digest : nil)
                    }
                case nil: return
                }
            }
        }

        private func sendLine(into out: UnsafeMutablePointer<UInt8>, kind flow: Bool, id: Int64, action: UnsafeRawBufferPointer,
                              digest: UInt64?) -> Int {
            var p = out
            func put(_ s: StaticString) {
                p.update(from: s.utf8Start, count: s.utf8CodeUnitCount)
                p += s.utf8CodeUnitCount
            }
            put("{\"action\":")
            if let text = action.baseAddress {
                p.update(from: text.assumingMemoryBound(to: UInt8.self), count: action.count)
                // Raw line breaks can only be white space between tokens:
                // spaces keep a line a line. Most actions have none (nor any
                // byte below 0x20), which a word at a time tells quickly.
                var i = 0
                var control = false
                while i + 8 <= action.count && !control {
                    let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                    control = (w &- 0x2020_2020_2020_2020) & ~w & 0x8080_8080_8080_8080 != 0
                    i += 8
                }
                if control || i < action.count {
                    for j in (control ? i - 8 : i)..<action.count where p[j] == 0x0A || p[j] == 0x0D { p[j] = 0x20 }
                }
                p += action.count
            }
            if let digest {
                put(",\"digest\":\"")
                Digest.writeHex(digest, to: p)
                p += 16
                put("\"")
            }
            // "flow" sorts before "kind", "scene" after it.
            var idText = Digits()
            idText.set(id)
            if flow {
                put(",\"flow\":")
                p += idText.copy(to: p)
                put(",\"kind\":\"send\"")
            } else {
                put(",\"kind\":\"send\",\"scene\":")
                p += idText.copy(to: p)
            }
            put(",\"seq\":")
            p += seqText.copy(to: p)
            put(",\"t\":")
            p += timeText.copy(to: p)
            put("}\n")
            return p - out
        }
    }
}

extension Runtime {
    // MARK: recording

    /// Runs one input; with a journal, under its input lock and recorded.
    /// `record` describes the input from its result (nil: nothing to record).
    /// The work `body` leaves is done once the input is recorded and the
    /// journal's lock let go: a service completing inline is a later input.
    func input<T>(_ body: (inout Work) throws(YaiaError) -> T, record: (T) -> (JournalInput, JSON?)?) throws(YaiaError) -> T {
        var work = Work()
        defer { run(work) }
        guard let journal = lock.withLock({ self.journal }) else { return try body(&work) }
        journal.lockInput()
        defer { journal.unlockInput() }
        let result = try body(&work)
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
            journaling.store(true, ordering: .relaxed)
            if let old { pastJournals.append(old) }
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
            defer {
                self.journal = nil
                journaling.store(false, ordering: .relaxed)
            }
            if let old = self.journal { pastJournals.append(old) }
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
    /// Lines longer than `maxLine` bytes are refused, as requests beyond
    /// request_bytes are.
    public static func replay(path: String, catalog: Catalog, upTo: Int64? = nil,
                              maxLine: Int = Limits().requestBytes) throws(YaiaError) -> JSON {
        var lines = try JournalLines(path: path, maxLine: maxLine)
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
            let record: JSON
            do throws(YaiaError) {
                record = try JSONParser.parse(line)
            } catch {
                throw bad("not JSON: \(error.message)")
            }
            guard case .object(let o) = record, case .string(let kind)? = o["kind"] else {
                throw bad("no \"kind\"", at: "/kind")
            }
            if !begun {
                guard kind == "begin", o["format"]?.stringValue == Journal.format, let snapshot = o["snapshot"] else {
                    throw bad("a journal starts with a \(Journal.format) begin line")
                }
                do throws(YaiaError) {
                    var work = Work()
                    defer { scratch.run(work) }
                    _ = try scratch.restore(snapshot, mode: .replay, work: &work)
                } catch {
                    throw bad(error.message, at: "/snapshot" + (error.at ?? ""))
                }
                begun = true
                continue
            }
            // Ids, seqs and depths are checked as a snapshot's are; the
            // snapshot of a restore input, whole, before it is replayed.
            for key in ["seq", "scene", "flow", "effect", "id", "depth"] {
                guard let v = o[key], key == "seq" || v.isNumber else { continue }
                do throws(YaiaError) {
                    _ = try SnapshotImage.counter(v, at: "/" + key, from: key == "depth" ? 0 : 1)
                } catch {
                    throw bad(error.message, at: error.at)
                }
            }
            if kind == "restore", let snapshot = o["snapshot"] {
                do throws(YaiaError) {
                    _ = try SnapshotImage(snapshot, catalog: catalog)
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
            let response = try open(try o.string("scene", code: .badRequest), args: o["args"] ?? [:], state: o["state"])
            if let id = o["id"]?.int64Value, response["scene"]?.int64Value != id {
                throw YaiaError(.badJournal, "the scene opened as \(response["scene"]?.int64Value ?? 0), not \(id)")
            }
            return response
        case "send":
            if o["flow"] != nil { return try send(flow: try o.integer("flow", code: .badRequest), action: try action()) }
            return try send(scene: try o.integer("scene", code: .badRequest), action: try action())
        case "outcome":
            let id = try o.integer("effect", code: .badRequest)
            let outcome: Outcome
            if let r = o["result"] { outcome = .success(r) } else { outcome = .failure(o["error"] ?? .null) }
            var work = Work()
            defer { run(work) }
            return try apply(&work) { (state, env, steps) -> JSON? in
                var stacked = false
                return state.complete(effect: id, outcome: outcome, env: env, steps: &steps, stacked: &stacked)
            }
        case "close":
            if o["flow"] != nil { try closeFlow(try o.integer("flow", code: .badRequest)) } else { try close(scene: try o.integer("scene", code: .badRequest)) }
            return nil
        case "start":
            return try startFlow(name: o["name"]?.stringValue, scene: try o.string("scene", code: .badRequest), args: o["args"] ?? [:])
        case "popped":
            return try popped(flow: try o.integer("flow", code: .badRequest), depth: Int(try o.integer("depth", code: .badRequest)), version: nil)
        case "link":
            guard case .array(let path)? = o["path"] else { throw YaiaError(.badJournal, "a link input needs a \"path\"") }
            return try link(flow: try o.integer("flow", code: .badRequest), path: path)
        case "restore":
            guard let s = o["snapshot"] else { throw YaiaError(.badJournal, "a restore input needs a \"snapshot\"") }
            // As live, with each effect's policy: without services, reissued effects wait.
            var work = Work()
            defer { run(work) }
            _ = try restore(s, mode: .live, work: &work)
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

    init(path: String, maxLine: Int) throws(YaiaError) {
        self.path = path
        self.maxLine = maxLine
        fd = try openRegularFile(path, flags: O_RDONLY, followSymlink: true, code: .badJournal)
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
        YaiaError(.badJournal, "line \(line) of \(path) is longer than request_bytes, \(maxLine) bytes")
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
