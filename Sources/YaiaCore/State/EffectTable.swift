import YaiaKit

/// The effects a runtime has in flight, as a value: their records, the keyed
/// policies (`concurrent`, `latest`, `queue`) with their queues, deadlines
/// and ids. Every decision about an effect's life is made here, as a pure
/// function of the table, its input and the time the caller read from its
/// clock; what the runtime must then do comes back as steps, which the shell
/// executes (it starts calls on services, withdraws them, arms timers).
public struct EffectTable: Sendable, Equatable {
    /// One effect in flight.
    public struct Record: Sendable, Equatable, JSONMembers {
        public enum Status: String, Sendable, Equatable {
            /// Waiting for the host to resolve it.
            case pending
            /// A service is performing it.
            case running
            /// Waiting for an earlier effect with its key (policy queue).
            case queued
        }

        public let id: Int64
        /// The scene that emitted it; 0 for a direct call outside any scene.
        public let scene: Int64
        public let effect: Effect
        public var status: Status
        /// When it times out, on the caller's clock; nil: never (or not started).
        public var deadline: Double?

        public init(id: Int64, scene: Int64, effect: Effect, status: Status, deadline: Double? = nil) {
            self.id = id
            self.scene = scene
            self.effect = effect
            self.status = status
            self.deadline = deadline
        }

        /// As listed in scene updates.
        @inlinable
        public func members<Sink: JSONMemberSink>(into sink: inout Sink) {
            effect.recordMembers(id: id, status: status.rawValue, into: &sink)
        }
    }

    /// What the shell must do, in order.
    public enum Step: Sendable, Equatable {
        /// Hand effect `id` to its service (a running effect).
        case start(Int64)
        /// Withdraw effect `id`'s call: it ended without an outcome (cancelled
        /// by key, by a `latest` successor, with its scene, or timed out).
        case cancel(Int64)
        /// Fire a clock tick at `at` (the effect's deadline).
        case arm(Int64, at: Double)
    }

    struct Key: Hashable, Sendable {
        let scene: Int64
        let key: String
    }

    public private(set) var records = IDMap<Record>()
    /// Live effects by scene and key, in the order they were emitted.
    private var keyed: [Key: [Int64]] = [:]
    /// The next scene effect's id; journals and snapshots carry it.
    public private(set) var nextID: Int64
    /// Direct calls count down from -1: they are no input, so they must not
    /// take ids from scenes' effects, which a journal replays.
    private var nextDirectID: Int64 = -1
    /// The largest id handed out.
    public let maxID: Int64

    public init(nextID: Int64 = 1, maxID: Int64 = 1 << 53) {
        self.nextID = nextID
        self.maxID = maxID
    }

    /// Scene effect ids ran out: no more may be admitted.
    public var exhausted: Bool { nextID > maxID }

    public subscript(id: Int64) -> Record? { records[id] }

    /// The scene effects, in id order (direct calls are no part of a snapshot).
    public var sceneRecords: [Record] {
        records.values.filter { $0.scene != 0 }.sorted { $0.id < $1.id }
    }

    /// Whether `id` was handed out to a scene effect (resolved or not).
    public func issued(_ id: Int64) -> Bool { id > 0 && id < nextID }

    // MARK: inputs

    /// A reducer emitted `effect`: it gets the next id, and its policy says
    /// whether it starts now, waits its turn (queue) or first cancels its
    /// predecessors (latest). `served`: a service of its name is registered
    /// (it runs), or not (it waits for the host). Past the last id, the
    /// effect still gets one (ids start at most at 2^53, so no count of them
    /// overflows); `exhausted` then refuses later reductions.
    /// `now` is read only if a deadline starts.
    public mutating func admit(_ effect: Effect, scene: Int64, served: Bool, now: @autoclosure () -> Double) -> (Record, [Step]) {
        var steps: [Step] = []
        let record = admit(effect, scene: scene, served: served, now: now()) { steps.append($0) }
        return (record, steps)
    }

    /// `admit`, its steps handed to `emit` as they are decided (no list is made).
    public mutating func admit(_ effect: Effect, scene: Int64, served: Bool, now: @autoclosure () -> Double,
                               emit: (Step) -> Void) -> Record {
        let id = nextID
        nextID &+= 1
        var record = Record(id: id, scene: scene, effect: effect, status: .queued)
        guard let key = effect.id else {
            activate(&record, served: served, now: now, emit: emit)
            records[id] = record
            return record
        }
        if effect.policy == .latest { cancel(key: key, scene: scene).forEach(emit) }
        let ref = Key(scene: scene, key: key)
        let earlier = keyed[ref, default: []]
        keyed[ref, default: []].append(id)
        if !(effect.policy == .queue && !earlier.isEmpty) {
            activate(&record, served: served, now: now, emit: emit)
        }
        records[id] = record
        return record
    }

    /// A call outside any scene (`perform`): running at once, with a deadline
    /// `timeout` seconds from `now`.
    public mutating func direct(_ effect: Effect, timeout: Double, now: Double) -> (Record, [Step]) {
        let id = nextDirectID
        nextDirectID &-= 1
        let record = Record(id: id, scene: 0, effect: effect, status: .running, deadline: now + timeout)
        records[id] = record
        return (record, [.arm(id, at: now + timeout), .start(id)])
    }

    /// A scene's `{"cancel": KEY}`: its live effects with that key end
    /// without an outcome.
    public mutating func cancel(key: String, scene: Int64) -> [Step] {
        guard let ids = keyed.removeValue(forKey: Key(scene: scene, key: key)) else { return [] }
        return ids.compactMap { id in records.removeValue(forKey: id).map { .cancel($0.id) } }
    }

    /// Effect `id` ended with an outcome (a service's, the host's or a
    /// time-out): it is removed and returned, and the next queued effect
    /// with its key may start. Nil when it is no longer live.
    /// `startedOnly`: an effect still waiting in its queue is left as it is (nil).
    public mutating func end(_ id: Int64, startedOnly: Bool = false, served: (String) -> Bool,
                             now: @autoclosure () -> Double) -> (Record, [Step])? {
        if startedOnly, records[id]?.status == .queued { return nil }
        guard let record = records.removeValue(forKey: id) else { return nil }
        return (record, unqueue(after: record, served: served, now: now))
    }

    /// Scenes closed: their effects end without an outcome.
    public mutating func close(scenes: Set<Int64>) -> [Step] {
        let ending = records.values.filter { scenes.contains($0.scene) }.sorted { $0.id < $1.id }
        for record in ending {
            records[record.id] = nil
            if let key = record.effect.id { keyed[Key(scene: record.scene, key: key)] = nil }
        }
        return ending.map { .cancel($0.id) }
    }

    /// The clock read `now`: the effects whose deadline passed, earliest
    /// first. They stay live until `end` takes their time-out outcome.
    public func due(at now: Double) -> [Int64] {
        records.values.filter { $0.status != .queued && ($0.deadline.map { $0 <= now } ?? false) }
            .sorted { ($0.deadline ?? 0, $0.id) < ($1.deadline ?? 0, $1.id) }.map(\.id)
    }

    /// Removes every scene effect (a snapshot is restored over them).
    public mutating func removeSceneEffects() -> [Int64] {
        let ids = records.values.filter { $0.scene != 0 }.map(\.id).sorted()
        for id in ids { records[id] = nil }
        keyed.removeAll()
        return ids
    }

    /// How a restored effect comes back.
    public enum Return: Sendable, Equatable {
        /// As it was: pending or queued, waiting for an outcome; `deadline`
        /// re-arms a pending one's time-out.
        case await(deadline: Bool)
        /// Started again (or left queued).
        case reissue
    }

    /// Puts back an effect from a snapshot, with its id; call in id order so
    /// that keyed queues keep their order. `nextID` moves past it. The
    /// record is pending, or queued behind an earlier one with its key.
    public mutating func restore(_ restored: Record, as way: Return, served: Bool, now: Double) -> [Step] {
        var record = restored
        let (id, scene, effect, queued) = (record.id, record.scene, record.effect, record.status == .queued)
        var steps: [Step] = []
        if let key = effect.id { keyed[Key(scene: scene, key: key), default: []].append(id) }
        switch way {
        case .await(let deadline):
            if !queued, deadline, let seconds = effect.timeout {
                record.deadline = now + seconds
                steps.append(.arm(id, at: now + seconds))
            }
        case .reissue:
            if !queued { activate(&record, served: served, now: { now }, emit: { steps.append($0) }) }
        }
        records[id] = record
        nextID = max(nextID, id &+ 1)
        return steps
    }

    /// Counters from a snapshot: ids never go back.
    public mutating func advanceNextID(to id: Int64) { nextID = max(nextID, id) }

    // MARK: decisions

    /// Starts an effect: a service performs it, or it waits for the host;
    /// either way its deadline starts now.
    private func activate(_ record: inout Record, served: Bool, now: () -> Double, emit: (Step) -> Void) {
        record.status = served ? .running : .pending
        if let seconds = record.effect.timeout {
            let deadline = now() + seconds
            record.deadline = deadline
            emit(.arm(record.id, at: deadline))
        }
        if served { emit(.start(record.id)) }
    }

    /// After `ended` leaves its key's list, the next queued effect starts.
    private mutating func unqueue(after ended: Record, served: (String) -> Bool, now: () -> Double) -> [Step] {
        guard let key = ended.effect.id else { return [] }
        let ref = Key(scene: ended.scene, key: key)
        guard var list = keyed[ref] else { return [] }
        list.removeAll { $0 == ended.id }
        if list.isEmpty {
            keyed[ref] = nil
            return []
        }
        keyed[ref] = list
        guard let next = list.first, var record = records[next], record.status == .queued, record.effect.policy == .queue else { return [] }
        var steps: [Step] = []
        activate(&record, served: served(record.effect.service), now: now, emit: { steps.append($0) })
        records[next] = record
        return steps
    }
}
