import CYaia
import Glibc
import YaiaCore
import YaiaKit

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
    /// journal object may outlive its file (a send under way holds it).
    /// -1 once closed; set under monitor.lock.
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

    init(path: String, files: FileAccess = .host) throws(YaiaError) {
        let file = try files.open(path, flags: O_RDWR | O_CREAT, code: .badJournal)
        fd = try JournalFile.prepare(file.fd, path: file.path)
        self.path = file.path
        spare = (1..<JournalFile.buffers).map { _ in Buffer() }
        let started = startThread { [self] in run() }
        monitor.lock.withLock { threaded = started }
    }

    /// Empties the file open at `fd` for a new journal. A file that is not
    /// empty and does not begin as a journal does is refused (and closed), not truncated.
    private static func prepare(_ fd: Int32, path: String) throws(YaiaError) -> Int32 {
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
                // spaces keep a line a line.
                for j in 0..<action.count where p[j] == 0x0A || p[j] == 0x0D { p[j] = 0x20 }
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
