import YaiaCore
import YaiaKit

/// Recording: every input runs under the journal's lock and is written to it.
extension Runtime {
    /// Runs one input; with a journal, under its input lock and recorded.
    /// `record` describes the input from its result (nil: nothing to record).
    /// The work `body` leaves is done once the input is recorded and the
    /// journal's lock let go: a service completing inline is a later input.
    func input<T>(_ body: (inout Work) throws(YaiaError) -> T, record: (T) -> (JournalInput, JSON?)?) throws(YaiaError) -> T {
        var work = Work()
        defer { run(work) }
        guard journaling.load(ordering: .relaxed), let journal = lock.withLock({ self.journal }) else { return try body(&work) }
        journal.lockInput()
        defer { journal.unlockInput() }
        let result = try body(&work)
        if let (input, response) = record(result) { journal.record(input, digest: response.flatMap(journal.digest(of:))) }
        return result
    }

    /// Starts journaling to `path` (truncated), beginning with a snapshot.
    /// A snapshot that cannot be taken (a pack's state unreadable) fails the
    /// start, nothing written: it is tried once before the file is touched,
    /// and should it fail only the second time, the new journal is dropped.
    public func startJournal(path: String) throws(YaiaError) -> JSON {
        try startJournal(path: path, files: .host)
    }

    /// `files` says how the journal's file is opened: as the host's, or beneath a request's grant.
    func startJournal(path: String, files: FileAccess) throws(YaiaError) -> JSON {
        _ = try snapshot()
        let journal = try Journal(path: path, files: files)
        // The snapshot and the switch happen under the new journal's lock, so
        // no input falls between them.
        journal.lockInput()
        defer { journal.unlockInput() }
        let old = lock.withLock { () -> Journal? in
            let old = self.journal
            self.journal = journal
            journaling.store(true, ordering: .relaxed)
            return old
        }
        if let old {
            old.lockInput()
            _ = old.close()
            old.unlockInput()
        }
        do throws(YaiaError) {
            journal.begin(snapshot: try snapshot())
        } catch {
            lock.withLock {
                if self.journal === journal {
                    self.journal = nil
                    journaling.store(false, ordering: .relaxed)
                }
            }
            _ = journal.close()
            throw error
        }
        return ["ok": true, "journal": .string(journal.path)]
    }

    /// Stops journaling; pending lines are written.
    public func stopJournal() -> JSON {
        let old = lock.withLock { () -> Journal? in
            defer {
                self.journal = nil
                journaling.store(false, ordering: .relaxed)
            }
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
}
