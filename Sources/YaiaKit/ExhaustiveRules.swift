// The rules of an exhaustive test, written once. SceneTest (Swift), the
// scenario runner and the Python binding's SceneTest (through the `expect`
// request) each feed it what an input did and what the test states; it keeps
// what is still to be asserted and words the failures.

/// What a test has seen a scene emit and not yet asserted, and the checks of
/// each step against it.
///
/// The rules, with `exhaustive` on: after an input the state is the previous
/// one with exactly the stated changes; every effect emitted is received, in
/// order, and every route asserted, before the next input; at the end no
/// effect is left unasserted or in flight. Off: only what the test states is
/// checked, in any order.
package struct ExhaustiveRules: Sendable, Equatable {
    /// An effect the test saw emitted.
    package struct Record: Sendable, Equatable {
        package enum Status: Sendable, Equatable {
            case inFlight
            /// In flight, but waiting behind an earlier effect with its key.
            case queued
            case resolved
            /// No longer in flight though the test gave it no outcome: by
            /// what, when the test knows.
            case cancelled(by: String?)
        }

        /// The effect as the reducer asked for it: service, op, args, then, catch, id, ...
        package var request: JSON
        package var received = false
        package var status = Status.inFlight
        /// Reported once already (or let go): not reported again.
        package var excused = false

        package init(request: JSON) {
            self.request = request
        }

        package var key: String? { request["id"]?.stringValue }
        package var isInFlight: Bool { status == .inFlight || status == .queued }
    }

    /// What a step got wrong: a message, and where values differ.
    package struct Failure: Sendable, Equatable {
        package var message: String
        package var differences: [ScenarioDiff.Difference] = []
        /// Lines said after the differences.
        package var notes: [String] = []

        package init(_ message: String, differences: [ScenarioDiff.Difference] = [], notes: [String] = []) {
            self.message = message
            self.differences = differences
            self.notes = notes
        }

        /// The message, then a line per difference and note.
        package var text: String {
            let shown = differences.prefix(ScenarioDiff.maxDifferences)
            let omitted = differences.count - shown.count
            return message + (differences.isEmpty && notes.isEmpty ? "" : ":")
                + shown.map { "\n  " + $0.line }.joined()
                + (omitted > 0 ? "\n  … and \(counted(omitted, "more difference"))" : "")
                + notes.map { "\n  " + $0 }.joined()
        }
    }

    package var exhaustive: Bool
    package internal(set) var effects: [Record] = []
    /// Routes emitted and not asserted yet.
    package internal(set) var routes: [JSON] = []

    package init(exhaustive: Bool = true) {
        self.exhaustive = exhaustive
    }

    // MARK: - What an input did

    /// Keeps an effect emitted; its index is the handle the test resolves it by.
    @discardableResult
    package mutating func emitted(effect request: JSON) -> Int {
        emitted(Record(request: request))
    }

    /// Keeps an effect as the test saw it (a Python test's, read from JSON).
    @discardableResult
    package mutating func emitted(_ record: Record) -> Int {
        effects.append(record)
        return effects.count - 1
    }

    package mutating func emitted(route: JSON) {
        routes.append(route)
    }

    /// The effects in flight with `key` end without an outcome.
    package mutating func cancel(key: String, by reason: String?) {
        for i in effects.indices where effects[i].isInFlight && effects[i].key == key {
            effects[i].status = .cancelled(by: reason)
        }
    }

    /// What the runtime says of an effect in flight: still pending, queued, or gone.
    package mutating func update(_ i: Int, queued: Bool? = nil) {
        guard effects.indices.contains(i), effects[i].isInFlight else { return }
        switch queued {
        case true?: effects[i].status = .queued
        case false?: effects[i].status = .inFlight
        case nil: effects[i].status = .cancelled(by: nil)
        }
    }

    // MARK: - Steps

    /// Before the next input: what the previous ones emitted must have been
    /// asserted. Either way it is then let go.
    package mutating func beforeInput() -> Failure? {
        let failure = exhaustive ? unasserted().map { Failure($0 + "\n(assert what a step emits before the next input)") } : nil
        for i in effects.indices where !effects[i].received {
            effects[i].received = true
            if exhaustive { effects[i].excused = true }
        }
        routes.removeAll()
        return failure
    }

    /// Which state the stated changes apply to: after an input, exhaustive,
    /// the previous one; else the actual one, when changes are stated (nil:
    /// nothing to check).
    package enum StateBase: Sendable { case previous, actual }

    package func stateBase(stated: Bool, input: Bool = true) -> StateBase? {
        if exhaustive && input { return .previous }
        return stated ? .actual : nil
    }

    /// `base` with each change set: a member name or a JSON Pointer, and its
    /// value (nil: no such member). Also the pointers that have nowhere to go.
    package static func applying(_ changes: [(key: String, value: JSON?)], to base: JSON) -> (JSON, nowhere: [String]) {
        var out = base
        var nowhere: [String] = []
        for (key, value) in changes {
            let pointer = key.hasPrefix("/") ? key : JSONPointer.appending("", key)
            if let changed = ScenarioDiff.setting(value, at: pointer, in: out) { out = changed } else { nowhere.append(pointer) }
        }
        return (out, nowhere)
    }

    /// The state is the expected one. `unstated`: what the test calls its
    /// statement of changes (`state=`), named when none was given.
    package func state(expected: JSON, actual: JSON, stated: Bool, unstated: String? = nil, at pointer: String = "") -> Failure? {
        let differences = ScenarioDiff.differences(expected: expected, actual: actual, at: pointer, limit: .max)
        guard !differences.isEmpty else { return nil }
        let hint = !stated ? unstated.map { " (no \($0) was given: it must not change)" } ?? "" : ""
        return Failure("the state is not the expected one" + hint, differences: differences)
    }

    /// What the test expects of the next effect: the whole request, or some
    /// of its members (nil: the member must be absent).
    package enum EffectExpectation: Sendable {
        case whole(JSON)
        case members([(key: String, value: JSON?)])

        func expected(for actual: JSON) -> JSON {
            switch self {
            case .whole(let e): return e
            case .members(let ms):
                guard case .object(var o) = actual else { return actual }
                for (k, v) in ms { o[k] = v }
                return .object(o)
            }
        }
    }

    /// Receives the next effect not yet received (not exhaustive: the first
    /// that matches). Its index, when there is one to hand back.
    package mutating func receive(_ wanted: EffectExpectation) -> (index: Int?, failure: Failure?) {
        let open = effects.indices.filter { !effects[$0].received }
        guard let first = open.first else {
            return (nil, Failure("no effect was emitted that was not received already"))
        }
        func differences(_ i: Int) -> [ScenarioDiff.Difference] {
            let actual = effects[i].request
            return ScenarioDiff.differences(expected: wanted.expected(for: actual), actual: actual, limit: .max)
        }
        if exhaustive {
            effects[first].received = true
            let found = differences(first)
            return (first, found.isEmpty ? nil : Failure("the next effect is \(describe(first))", differences: found))
        }
        if let i = open.first(where: { differences($0).isEmpty }) {
            effects[i].received = true
            return (i, nil)
        }
        let listed = open.flatMap { i in [describe(i)] + differences(i).map { "  " + $0.line } }
        return (nil, Failure("none of the effects not yet received matches", notes: listed))
    }

    /// Asserts the next route not yet asserted (not exhaustive: any one).
    package mutating func expectRoute(_ expected: JSON) -> Failure? {
        guard !routes.isEmpty else { return Failure("no route was emitted that was not asserted already") }
        if exhaustive {
            let actual = routes.removeFirst()
            let found = ScenarioDiff.differences(expected: expected, actual: actual, limit: .max)
            return found.isEmpty ? nil : Failure("the next route is \(ScenarioDiff.render(actual))", differences: found)
        }
        if let i = routes.firstIndex(of: expected) {
            routes.remove(at: i)
            return nil
        }
        return Failure("none of the routes not yet asserted matches", notes: routes.map { ScenarioDiff.render($0) })
    }

    /// Whether effect `i` can take an outcome now; if so, it counts as received.
    package mutating func resolving(_ i: Int) -> Failure? {
        guard effects.indices.contains(i) else { return Failure("this test emitted no such effect") }
        switch effects[i].status {
        case .resolved: return Failure("the effect was resolved already")
        case .cancelled(let by?): return Failure("the effect was cancelled by \(by); its outcome is never delivered")
        case .cancelled(nil):
            return Failure("the scene cancelled the effect (a cancel, a successor with policy latest, or its timeout); its outcome is never delivered")
        case .queued:
            let key = effects[i].key
            let ahead = effects[..<i].indices.first { effects[$0].isInFlight && effects[$0].key == key }
            return Failure("the effect is queued" + (ahead.map { " behind \(name($0))" } ?? "")
                           + " with key \(ScenarioDiff.render(key.map(JSON.string) ?? .null)), and starts only once the earlier ones with its key have ended")
        case .inFlight:
            effects[i].received = true
            return nil
        }
    }

    package mutating func resolved(_ i: Int) {
        if effects.indices.contains(i) { effects[i].status = .resolved }
    }

    /// Marks the effects not yet received as received; their indices.
    package mutating func skipEffects() -> [Int] {
        let skipped = effects.indices.filter { !effects[$0].received }
        for i in skipped { effects[i].received = true }
        return skipped
    }

    package mutating func skipRoutes() -> [JSON] {
        defer { routes.removeAll() }
        return routes
    }

    /// Ends the test: exhaustive, what was never asserted, and effects still
    /// in flight, fail (each is reported once). Either way all is let go.
    package mutating func finish() -> Failure? {
        defer {
            for i in effects.indices where !effects[i].received || effects[i].isInFlight {
                effects[i].received = true
                effects[i].excused = true
            }
            routes.removeAll()
        }
        guard exhaustive else { return nil }
        var parts: [String] = []
        if let message = unasserted() { parts.append(message) }
        // An effect never received was reported as such just above.
        let stuck = effects.indices.filter { effects[$0].received && effects[$0].isInFlight && !effects[$0].excused }
        if !stuck.isEmpty { parts.append(Self.stillInFlight(stuck.count) + ":" + stuck.map { "\n  " + describe($0) }.joined()) }
        return parts.isEmpty ? nil : Failure(parts.joined(separator: "\n"))
    }

    /// `2 effects are still in flight (resolve them, or have the scene cancel
    /// them)`; with their names, `1 effect is still in flight (#1 a.b): resolve it, ...`.
    package static func stillInFlight(_ count: Int, names: String? = nil) -> String {
        let them = count == 1 ? "it" : "them"
        let head = "\(counted(count, "effect")) \(count == 1 ? "is" : "are") still in flight"
        let advice = "resolve \(them), or have the scene cancel \(them)"
        return names.map { head + " (\($0)): " + advice } ?? head + " (" + advice + ")"
    }

    // MARK: - Words

    private func unasserted() -> String? {
        let unreceived = effects.indices.filter { !effects[$0].received }
        var parts: [String] = []
        if !unreceived.isEmpty {
            parts.append("\(counted(unreceived.count, "effect")) emitted but never received:" + unreceived.map { "\n  " + describe($0) }.joined())
        }
        if !routes.isEmpty {
            parts.append("\(counted(routes.count, "route")) emitted but never asserted:" + routes.map { "\n  " + ScenarioDiff.render($0) }.joined())
        }
        return parts.isEmpty ? nil : parts.joined(separator: "\n")
    }

    /// `#0 auth.login`.
    package func name(_ i: Int) -> String {
        let r = effects[i].request
        return "#\(i) \(r["service"]?.stringValue ?? "?").\(r["op"]?.stringValue ?? "?")"
    }

    /// `#0 auth.login {"args":...,"op":"login","service":"auth"}`.
    package func describe(_ i: Int) -> String {
        name(i) + " " + ScenarioDiff.render(effects[i].request)
    }
}
