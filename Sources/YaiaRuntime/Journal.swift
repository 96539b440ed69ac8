import Glibc
import YaiaCore
import YaiaKit

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

    init(path: String, files: FileAccess = .host) throws(YaiaError) {
        file = try JournalFile(path: path, files: files)
        self.path = file.path
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

    /// Appends an input's line, with the digest of what it produced; the
    /// caller holds the input lock. (Sends are recorded by `recordSend`.)
    func record(_ input: JournalInput, digest: UInt64?) {
        guard !closed else { return }
        seq += 1
        appendLine(.object(input.line(seq: seq, time: stamp(Journal.now()), digest: digest.map(Digest.hex))))
    }

    /// Appends the line of an effect's outcome from a service, unless it
    /// changed nothing.
    func record(_ input: JournalInput, _ completion: RuntimeState.Completion) {
        switch completion {
        case .none: return
        case .ended: record(input, digest: nil)
        case .reduced(let update): record(input, digest: digest(of: update))
        }
    }

    /// Records a send. An action sent as text (valid JSON, already checked)
    /// is recorded exactly as the caller sent it instead of formatted again;
    /// a value is formatted. Caller holds the input lock.
    func recordSend(_ target: SendTarget, _ sent: SentAction, digest: UInt64?, time: Int64) {
        let action: Action
        switch sent {
        case .text(let text):
            appendSend(target, action: UnsafeRawBufferPointer(text.bytes), digest: digest, time: time)
            return
        case .value(let value): action = value
        }
        actionScratch.reset()
        action.write(into: &actionScratch)
        actionScratch.withBytes { appendSend(target, action: $0, digest: digest, time: time) }
    }

    /// The digest a line records for `update`: of its members that a replay
    /// must reproduce (`Update.digested`). Without a stack that is its last
    /// member, the view model, which `w` holds from `last` on (as
    /// `writeObject` wrote it): digested there, not written again.
    func digest(of update: Update, written w: borrowing JSONWriter, last: Int) -> UInt64? {
        if case .patch = update.view { return digest(of: update) }
        return update.flow == nil ? w.digestOfObject(from: last) : digest(of: update)
    }

    func digest(of update: Update) -> UInt64? {
        scratch.reset()
        update.digested.write(into: &scratch)
        return scratch.withBytes { Digest.value($0) }
    }

    /// The digest of a response of an input other than a reduction.
    func digest(of response: JSON) -> UInt64? {
        Journal.digestValue(of: response, scratch: &scratch)
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
            if let base = action.baseAddress { (raw + 8 + JournalFile.sendHeader).copyMemory(from: base, byteCount: action.count) }
            return 8 + body
        }
        if records.byteCount >= JournalFile.chunk { file.ship(&records) }
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
