import CYaia
import YaiaCore
import YaiaKit

/// The runtime's view of the world, as its state asks for it: the clock, the
/// service holder and the catalog. Used only while the runtime's lock is held.
struct ShellEnvironment: RuntimeEnvironment {
    unowned(unsafe) let runtime: Runtime
    var now: Double { runtime.clock.now }
    var sceneValues: JSON { runtime.sceneValues() }
    func serves(_ service: String) -> Bool { runtime.services[service] != nil }
    func openScene(_ name: String, args: JSON) throws(YaiaError) -> any LiveScene {
        try runtime.makeScene(name, args: args)
    }
}

extension Runtime {
    // MARK: applying inputs

    /// Applies one input to `state` under `lock`: its events are queued
    /// before the lock is let go (so events keep the order of inputs), the
    /// rest of its steps go into `work`, for `run` (`offThread`: see `Work`).
    func apply<T>(_ work: inout Work, offThread: Bool = false,
                  _ body: (inout RuntimeState, ShellEnvironment, inout [RuntimeState.Step]) throws(YaiaError) -> T) throws(YaiaError) -> T {
        if offThread { work.offThread = true }
        return try lock.withLock { () throws(YaiaError) -> T in
            // The steps go into a list kept from the last input: an input that
            // starts or ends an effect allocates none.
            var steps: [RuntimeState.Step] = []
            swap(&steps, &stepList)
            defer {
                if steps.capacity > 0 && steps.capacity <= 64 {
                    // An input leaves a step or two: popped, they cost less
                    // than removeAll's general replacement of a range.
                    while steps.popLast() != nil {}
                    swap(&steps, &stepList)
                }
            }
            let result = try body(&state, ShellEnvironment(runtime: self), &steps)
            absorb(steps, into: &work)
            return result
        }
    }

    /// Takes the state's steps, under `lock`: events are queued now; calls
    /// to start or withdraw, deadlines and answers go into `work`.
    func absorb(_ steps: [RuntimeState.Step], into work: inout Work) {
        for step in steps {
            switch step {
            case .effect(.start(let id)):
                guard let record = state.effects[id], let service = services[record.effect.service] else { continue }
                let call = LiveCall(runtime: self, effectID: id, service: service, request: record.effect)
                // Given its handle now, a call withdrawn before it starts is
                // cancelled (`cancelCalls`), and `launch` need not look again.
                call.handle = calls.insert(call)
                liveEffects[id] = call
                work.launch(call)
            case .effect(.cancel(let id)):
                if let call = liveEffects.removeValue(forKey: id) { work.items.cancels.append(call) }
            case .effect(.arm(let id, let at)):
                work.items.deadlines.append((id, at))
            case .event(let event):
                events.push(.json(event))
                work.notify = true
            case .eventText(let text):
                events.push(.text(text))
                work.notify = true
            case .ended(let id):
                liveEffects[id] = nil
            case .answer(let id, let outcome):
                guard let call = liveEffects.removeValue(forKey: id) else { continue }
                if outcome == nil { work.items.cancels.append(call) }
                if let waiter = call.waiter { work.items.answers.append((waiter, outcome)) }
            case .warn(let message):
                work.items.warnings.append(message)
            }
        }
    }

    // MARK: outcomes

    /// The host's outcome for a pending effect. If the scene cannot read the
    /// resulting action, the effect stays pending and the error is thrown.
    public func resolve(effect id: Int64, outcome: Outcome) throws(YaiaError) -> JSON {
        try answer(.resolve(effect: id, outcome))
    }

    /// A service's outcome for a live effect: reduced now, its update
    /// queued, and journaled. Outcomes of effects no longer live are dropped.
    func finish(effectID: Int64, outcome: Outcome) {
        var none = JSONWriter(capacity: 0)
        try? reduce(.complete(effect: effectID, outcome, answered: false), into: &none)
    }

    /// A deadline may have passed: if effect `id`'s has on the clock now, its
    /// call is withdrawn (the service told, a late completion made stale)
    /// and its catch action told, journaled as its outcome.
    func timedOut(_ id: Int64) {
        var none = JSONWriter(capacity: 0)
        try? reduce(.timeOut(effect: id), into: &none)
    }

    // MARK: direct calls

    /// Performs one effect outside any scene and waits for its outcome, at
    /// most its timeout (default `directTimeout` seconds) on the runtime's clock.
    public static let directTimeout = 60.0

    public func perform(_ effect: Effect) throws(YaiaError) -> JSON {
        let waiter = Waiter()
        let seconds = effect.timeout ?? Runtime.directTimeout
        var deadline = 0.0
        var work = Work()
        let id = try lock.withLock { () throws(YaiaError) -> Int64 in
            try checkRunning()
            guard services[effect.service] != nil else {
                throw YaiaError(.noSuchService, "no service named \"\(effect.service)\"", at: "/effect/service")
            }
            let now = clock.now
            var (id, steps) = state.direct(effect, timeout: seconds, now: now)
            deadline = now + seconds
            // The caller's own thread keeps the deadline on the system clock:
            // a timer thread's wake-up would cost more than most calls.
            if !clock.isManual { steps.removeAll { if case .effect(.arm) = $0 { return true } else { return false } } }
            absorb(steps, into: &work)
            liveEffects[id]?.waiter = waiter
            return id
        }
        run(work)
        var outcome = waiter.wait(until: clock.isManual ? .infinity : deadline)
        if outcome == nil {
            timedOut(id)
            outcome = waiter.wait(until: 0)
        }
        guard let outcome else {
            throw YaiaError(.timeout, "\(effect.service).\(effect.op) did not complete within \(seconds) s")
        }
        switch outcome {
        case .success(let result):
            return ["ok": true, "result": result]
        case .failure(let detail) where detail["code"] == "cancelled":
            throw YaiaError(.badHandle, "the runtime was freed while \(effect.service).\(effect.op) was in flight")
        case .failure(let detail):
            // Failures the runtime itself reports keep their code.
            var code = ErrorCode.serviceFailed
            let own: Set<String> = [ErrorCode.timeout.rawValue, ErrorCode.badResult.rawValue, ErrorCode.badArgument.rawValue,
                                    ErrorCode.limitExceeded.rawValue]
            if case .string(let c)? = detail["code"], own.contains(c) {
                code = ErrorCode(rawValue: c)
            }
            let message = detail["message"]?.stringValue ?? "\(effect.service).\(effect.op) failed"
            var error = YaiaError(code, message).json.objectValue ?? [:]
            if code == .limitExceeded { error["limit"] = detail["limit"] }
            error["detail"] = detail
            return ["ok": false, "error": .object(error)]
        }
    }

    // MARK: side work, done outside every lock

    /// What an input leaves to do once the lock is let go. Most inputs (a
    /// send that emits no effect) leave nothing: the lists are made on demand.
    struct Work {
        final class Items {
            var launches: [LiveCall] = []
            var cancels: [LiveCall] = []
            var deadlines: [(Int64, Double)] = []
            var answers: [(Waiter, Outcome?)] = []
            var warnings: [String] = []
        }

        fileprivate var made: Items?
        /// The first launch: most inputs that start a call start one.
        fileprivate var firstLaunch: LiveCall?

        mutating func launch(_ call: LiveCall) {
            if firstLaunch == nil {
                firstLaunch = call
            } else {
                items.launches.append(call)
            }
        }

        var items: Items {
            mutating get {
                if let made { return made }
                let items = Items()
                made = items
                return items
            }
        }
        var notify = false
        /// Set on the paths that end effects (completions, time-outs): their
        /// launches go through the pool, so that perform() never runs inside
        /// a service's own call_complete and cannot deadlock on its locks.
        var offThread = false
    }

    /// Executes `work`. Deadlines are the state's data: on the system clock a
    /// timer thread wakes at each; a manual clock fires them in `advance`. A
    /// replaying runtime arms none: its outcomes, time-outs included, come
    /// from the journal.
    func run(_ work: Work) {
        if let call = work.firstLaunch, work.made == nil {
            start(call, offThread: work.offThread)
        } else if let items = work.made {
            for message in items.warnings { Log.write(.warning, "runtime", message) }
            if !items.deadlines.isEmpty && !replaying && !clock.isManual {
                let timers = timers()
                for (id, deadline) in items.deadlines { timers.schedule(id, at: deadline) }
            }
            cancelCalls(items.cancels)
            for (waiter, outcome) in items.answers {
                if let outcome { waiter.deliver(outcome) } else { waiter.expire() }
            }
            if let call = work.firstLaunch { start(call, offThread: work.offThread) }
            for call in items.launches { start(call, offThread: work.offThread) }
        }
        if work.notify { notify() }
    }

    /// An effect started because another ended inside a service call on
    /// this thread waits until that call returns (the service may hold its
    /// locks); from any other thread, the pool.
    private func start(_ call: LiveCall, offThread: Bool) {
        if offThread && cyaia_reentry_depth() > 0 {
            DeferredLaunches.add(self, call)
        } else {
            launch(call, offThread: offThread)
        }
    }

    private func timers() -> Timers {
        lock.withLock { () -> Timers in
            if let t = timerTable { return t }
            let t = Timers { [weak self] id in self?.timedOut(id) }
            timerTable = t
            return t
        }
    }

    /// Moves a manual clock forward by `seconds`; the deadlines it passes
    /// fire, earliest first, before this returns. `not_permitted` on the
    /// system clock.
    public func advance(by seconds: Double) throws(YaiaError) -> JSON {
        guard case .manual(let manual) = clock else {
            throw YaiaError(.notPermitted, "advance moves a manual clock; this runtime runs on the system clock (config \"clock\": \"manual\")", at: "/op")
        }
        guard seconds.isFinite, seconds >= 0 else {
            throw YaiaError(.badRequest, "\"seconds\" must be a finite number, 0 or more", at: "/seconds")
        }
        let now = manual.advance(by: seconds)
        let due = lock.withLock { state.effects.due(at: now) }
        for id in due { timedOut(id) }
        return ["ok": true, "now": .double(now), "fired": .int(Int64(due.count))]
    }

    /// Hands a running effect to its service: inline, or on the pool if it blocks.
    fileprivate func launch(_ call: LiveCall, offThread: Bool) {
        let id = call.effectID
        let service = call.service
        // Set under the lock on this thread, before this runs.
        guard let handle = call.handle else {
            finish(effectID: id, outcome: .failure(["code": "internal", "message": "too many calls are in flight"]))
            return
        }
        let waiting = call.waiter != nil
        let reentry = limits.reentry
        guard service.blocking || offThread else {
            Runtime.perform(call, handle, waiting: waiting, reentry: reentry, runtime: self)
            return
        }
        let submitted = pool.submit { [weak self] in
            Runtime.perform(call, handle, waiting: waiting, reentry: reentry, runtime: self)
        }
        if !submitted {
            calls.remove(handle)
            finish(effectID: id, outcome: .failure(["code": "internal", "message": "no worker thread could be started"]))
        }
    }

    /// Calls the service of call `handle`, unless it was withdrawn first
    /// (withdrawing cancels `target`).
    private static func perform(_ target: LiveCall, _ handle: UInt, waiting: Bool, reentry: Int, runtime: Runtime?) {
        guard target.start() else { return }
        // A service that calls back into the runtime from perform() and
        // so performs again on this thread must not recurse without end.
        guard cyaia_reentry_enter(Int32(reentry)) != 0 else {
            guard calls.remove(handle) != nil else { return }
            let error = YaiaError.limit("reentry", reentry, "\(target.request.service).\(target.request.op) was called from inside \(reentry) service calls on one thread")
            runtime?.finish(effectID: target.effectID, outcome: .failure(error.json))
            return
        }
        defer {
            if cyaia_reentry_leave_deferred() != 0 { DeferredLaunches.run() }
        }
        if !target.service.perform(handle, target, waiting: waiting) {
            calls.remove(handle)
        }
    }

    /// Withdraws the calls of ended effects; services that saw them are told.
    func cancelCalls(_ ended: [LiveCall]) {
        for call in ended {
            guard let handle = lock.withLock({ call.handle }), let target = calls.remove(handle) else { continue }
            if target.cancel() { target.service.cancel(handle) }
        }
    }
}

/// Effects started by an outcome that a service delivered from inside its
/// own perform() on this thread: they start once that perform() returns,
/// on the same thread, without a hop through the pool. Kept in a C
/// thread-local slot.
private final class DeferredLaunches {
    var items: [(Runtime, LiveCall)] = []

    static func add(_ runtime: Runtime, _ call: LiveCall) {
        let list = cyaia_deferred_swap(nil).map { Unmanaged<DeferredLaunches>.fromOpaque($0).takeRetainedValue() } ?? DeferredLaunches()
        list.items.append((runtime, call))
        _ = cyaia_deferred_swap(Unmanaged.passRetained(list).toOpaque())
    }

    /// Starts what was deferred, and what those start in turn: in this
    /// loop, which counts as a call under way, so the stack does not grow
    /// with a chain of effects.
    static func run() {
        guard let first = cyaia_deferred_swap(nil) else { return }
        _ = cyaia_deferred_swap(first)
        _ = cyaia_reentry_enter(Int32.max)
        defer { cyaia_reentry_leave() }
        while let raw = cyaia_deferred_swap(nil) {
            for (runtime, call) in Unmanaged<DeferredLaunches>.fromOpaque(raw).takeRetainedValue().items {
                runtime.launch(call, offThread: false)
            }
        }
    }
}
