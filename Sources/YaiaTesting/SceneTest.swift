import Testing
import YaiaKit

/// How much of a scene's behaviour a `SceneTest` requires a test to assert.
public enum Exhaustivity: Sendable, Equatable {
    /// Everything: each step's whole new state, every effect and route in the
    /// order emitted, and every effect resolved or cancelled by `finish()`.
    case on
    /// Only what the test states: a state closure's assignments must hold in
    /// the actual state, effects and routes may be asserted in any order or
    /// skipped, and effects may stay in flight.
    case off
}

/// An effect a scene emitted, as a `SceneTest` saw it: the handle that
/// `resolve(_:with:)` takes.
public struct EmittedEffect: Sendable, Equatable, CustomStringConvertible {
    /// Its place among the effects the test has seen, from 0; -1 for the
    /// stand-in that a failed `receiveEffect` returns.
    public let index: Int
    public let effect: Effect

    public var description: String { "#\(index) \(effect.service).\(effect.op)" }
}

/// An exhaustive test of one scene, in the manner of TCA's TestStore, with
/// values only: no runtime, no services, no threads.
///
/// Each `send` reduces an action and asserts the whole new state: the closure
/// turns the previous state into the expected one. What the reducer emitted
/// must then be asserted before the next input: effects with `receiveEffect`,
/// routes with `expectRoute`. An effect stays in flight until the test
/// resolves it with an outcome, which goes back through the reducer as the
/// effect's `then` or `catch` action, as the runtime would deliver it.
/// `finish()` fails for anything emitted but never asserted, and for effects
/// still in flight.
///
/// Cancellation follows the runtime: a `.cancel(id)` command, and an effect
/// with policy `latest`, cancel the scene's in-flight effects with that `id`;
/// a cancelled effect needs no outcome and cannot be resolved. An effect with
/// policy `queue` can only be resolved once the earlier effects with its `id`
/// have ended. Deadlines are not simulated: deliver a timeout as
/// `.failure(["code": "timeout"])`.
///
/// Every failure is recorded as a Swift Testing issue at the line of the step
/// that found it, and kept in `failures`.
public struct SceneTest<S: SceneState>: Sendable {
    /// The scene's state after the last step.
    public private(set) var state: S
    public var exhaustivity: Exhaustivity
    /// Every failure recorded so far, in order.
    public private(set) var failures: [String] = []

    private var effects: [Record] = []
    /// Routes emitted by the latest input and not asserted yet.
    private var routes: [Route] = []

    private struct Record: Sendable {
        enum Status: Sendable, Equatable {
            case inFlight
            case resolved
            case cancelled(by: String)
        }

        var effect: Effect
        var received = false
        var status = Status.inFlight
        /// Reported as never received: not reported again as still in flight.
        var excused = false
    }

    public init(_ state: S, exhaustivity: Exhaustivity = .on) {
        self.state = state
        self.exhaustivity = exhaustivity
    }

    /// Opens the scene the way a runtime does, from open arguments.
    public init(_ type: S.Type, args: JSON = [:], exhaustivity: Exhaustivity = .on) throws(YaiaError) {
        self.init(try S(args: args), exhaustivity: exhaustivity)
    }

    /// The effects still waiting for an outcome, in the order emitted.
    public var pendingEffects: [EmittedEffect] {
        effects.indices.filter { effects[$0].status == .inFlight }.map { EmittedEffect(index: $0, effect: effects[$0].effect) }
    }

    // MARK: - Inputs

    /// Reduces a typed action; `assert` turns the previous state into the expected one.
    public mutating func send(
        _ action: S.Action, assert expect: ((inout S) throws -> Void)? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let label = "send(\(action))"
        checkAsserted(before: label, location)
        reduce(action, label: label, expect: expect, location)
    }

    /// Reduces an action given as a Flux Standard Action, read as the runtime
    /// reads it; an action the scene refuses is a failure that changes nothing.
    public mutating func send(
        _ action: Action, assert expect: ((inout S) throws -> Void)? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let label = "send(\(action.json.serialized()))"
        checkAsserted(before: label, location)
        let typed: S.Action
        do throws(YaiaError) {
            typed = try S.Action(action)
        } catch {
            fail("\(label): the scene refuses the action: \(error)", location)
            return
        }
        reduce(typed, label: label, expect: expect, location)
    }

    /// `send(Action(type, payload: payload))`.
    public mutating func send(
        _ type: String, payload: JSON? = nil, assert expect: ((inout S) throws -> Void)? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        send(Action(type, payload: payload), assert: expect, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Ends an in-flight effect with an outcome: its `then` or `catch` action
    /// is reduced and the new state asserted. Without that action the outcome
    /// is dropped and the state must stay as it is.
    public mutating func resolve(
        _ handle: EmittedEffect, with outcome: Outcome, assert expect: ((inout S) throws -> Void)? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let label: String
        switch outcome {
        case .success(let v): label = "resolve(\(handle), with: .success(\(JSONDiff.render(v))))"
        case .failure(let v): label = "resolve(\(handle), with: .failure(\(JSONDiff.render(v))))"
        }
        // The stand-in from a failed receiveEffect: that failure was recorded already.
        guard handle.index >= 0 else { return }
        let i = handle.index
        guard i < effects.count, effects[i].effect == handle.effect else {
            fail("\(label): this test emitted no such effect", location)
            return
        }
        switch effects[i].status {
        case .inFlight: break
        case .resolved:
            fail("\(label): the effect was resolved already", location)
            return
        case .cancelled(let by):
            fail("\(label): the effect was cancelled by \(by); its outcome is never delivered", location)
            return
        }
        let effect = effects[i].effect
        if effect.policy == .queue, let key = effect.id,
           let j = effects[..<i].firstIndex(where: { $0.status == .inFlight && $0.effect.id == key }) {
            fail("\(label): the effect is queued behind #\(j) \(effects[j].effect.service).\(effects[j].effect.op) "
                 + "with id \"\(key)\", and starts only once that one has ended", location)
            return
        }
        effects[i].received = true
        checkAsserted(before: label, location)
        guard let action = effect.outcomeAction(outcome) else {
            effects[i].status = .resolved
            checkState(previous: state, label: label, expect: expect, location)
            return
        }
        let typed: S.Action
        do throws(YaiaError) {
            typed = try S.Action(action)
        } catch {
            // As in the runtime: the effect stays in flight.
            fail("\(label): the scene refuses the outcome's action \(action.json.serialized()): \(error)", location)
            return
        }
        effects[i].status = .resolved
        reduce(typed, label: label, expect: expect, location)
    }

    // MARK: - Assertions on what the reducer emitted

    /// Asserts the next effect not yet received (with `exhaustivity: .off`,
    /// any one) by service and operation, and by its arguments when given.
    @discardableResult
    public mutating func receiveEffect(
        service: String, op: String, args: JSON? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> EmittedEffect {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let wanted = "\(service).\(op)" + (args.map { " with args \(JSONDiff.render($0))" } ?? "")
        return receive(
            wanted, location,
            matches: { $0.service == service && $0.op == op && (args == nil || $0.args == args) },
            expected: { actual in
                var e = actual
                e.service = service
                e.op = op
                if let args { e.args = args }
                return e
            },
            standIn: Effect(service: service, op: op, args: args ?? .null))
    }

    /// Asserts the next effect not yet received (with `exhaustivity: .off`,
    /// any one) in full: then, catch, id, policy and all.
    @discardableResult
    public mutating func receiveEffect(
        _ expected: Effect,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> EmittedEffect {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        return receive(JSONDiff.render(expected.json), location, matches: { $0 == expected }, expected: { _ in expected }, standIn: expected)
    }

    /// Asserts the next route not yet asserted (with `exhaustivity: .off`, any one).
    public mutating func expectRoute(
        _ expected: Route,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let label = "expectRoute(\(JSONDiff.render(expected.json)))"
        switch exhaustivity {
        case .on:
            guard !routes.isEmpty else {
                fail("\(label): no route was emitted that was not asserted already", location)
                return
            }
            let actual = routes.removeFirst()
            if actual != expected {
                fail("\(label): the next route is \(JSONDiff.render(actual.json)):" + differences(expected.json, actual.json), location)
            }
        case .off:
            if let i = routes.firstIndex(of: expected) {
                routes.remove(at: i)
            } else {
                fail("\(label): " + (routes.isEmpty ? "no route was emitted that was not asserted already"
                    : "none of the routes not yet asserted matches:" + routes.map { "\n  " + JSONDiff.render($0.json) }.joined()), location)
            }
        }
    }

    /// Asserts the current view model.
    public mutating func expectViewModel(
        _ expected: S.ViewModel,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let actual = state.viewModel
        guard actual != expected else { return }
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        fail("expectViewModel: the view model is not the expected one:" + differences(expected.json, actual.json), location)
    }

    /// Asserts a property of the current view model.
    public mutating func expectViewModel(
        _ predicate: (S.ViewModel) throws -> Bool,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let viewModel = state.viewModel
        do {
            if try predicate(viewModel) { return }
            fail("expectViewModel: the view model does not satisfy the predicate: \(JSONDiff.render(viewModel.json))", location)
        } catch {
            fail("expectViewModel: the predicate threw \(error)", location)
        }
    }

    /// Ends the test: fails for effects and routes never asserted, and (with
    /// exhaustivity on) for effects still in flight.
    public mutating func finish(
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        defer {
            for i in effects.indices where !effects[i].received {
                effects[i].received = true
                effects[i].excused = true
            }
            for i in effects.indices where effects[i].status == .inFlight { effects[i].excused = true }
            routes.removeAll()
        }
        guard exhaustivity == .on else { return }
        if let message = unasserted() { fail("finish: " + message, location) }
        // An effect never received was reported as such just above.
        let inFlight = effects.indices.filter { effects[$0].received && effects[$0].status == .inFlight && !effects[$0].excused }
        if !inFlight.isEmpty {
            fail("finish: \(count(inFlight.count, "effect")) \(inFlight.count == 1 ? "is" : "are") still in flight "
                 + "(resolve \(inFlight.count == 1 ? "it" : "them"), or have the scene cancel \(inFlight.count == 1 ? "it" : "them")):"
                 + inFlight.map { "\n  " + describe($0) }.joined(), location)
        }
    }

    // MARK: - Steps

    private mutating func reduce(_ action: S.Action, label: String, expect: ((inout S) throws -> Void)?, _ location: SourceLocation) {
        let previous = state
        let commands = state.reduce(action)
        for command in commands {
            switch command {
            case .effect(let e):
                if let key = e.id, e.policy == .latest {
                    cancel(key, by: "#\(effects.count) \(e.service).\(e.op) (policy latest, id \"\(key)\")")
                }
                effects.append(Record(effect: e))
            case .route(let r):
                routes.append(r)
            case .cancel(let key):
                cancel(key, by: ".cancel(\"\(key)\") from \(label)")
            }
        }
        checkState(previous: previous, label: label, expect: expect, location)
    }

    private mutating func cancel(_ key: String, by reason: String) {
        for i in effects.indices where effects[i].status == .inFlight && effects[i].effect.id == key {
            effects[i].status = .cancelled(by: reason)
        }
    }

    /// With exhaustivity on, the state must be the previous one changed by
    /// `expect`; off, the changes `expect` makes must already hold.
    private mutating func checkState(previous: S, label: String, expect: ((inout S) throws -> Void)?, _ location: SourceLocation) {
        var expected: S
        switch exhaustivity {
        case .on:
            expected = previous
        case .off:
            guard expect != nil else { return }
            expected = state
        }
        if let expect {
            do {
                try expect(&expected)
            } catch {
                fail("\(label): the state closure threw \(error)", location)
                return
            }
        }
        guard expected != state else { return }
        let diff = JSONDiff.lines(expected: expected.json, actual: state.json)
        if diff.isEmpty {
            fail("\(label): the state is not the expected one, though their JSON forms are equal:"
                 + "\n  expected: \(expected)\n  actual:   \(state)", location)
        } else {
            fail("\(label): the state is not the expected one:" + diff.map { "\n  " + $0 }.joined(), location)
        }
    }

    /// What the previous input emitted must be asserted before the next one.
    private mutating func checkAsserted(before label: String, _ location: SourceLocation) {
        if exhaustivity == .on, let message = unasserted() {
            fail("\(label): " + message + "\n(assert what a step emits before the next input)", location)
        }
        for i in effects.indices where !effects[i].received {
            effects[i].received = true
            if exhaustivity == .on { effects[i].excused = true }
        }
        routes.removeAll()
    }

    private func unasserted() -> String? {
        let unreceived = effects.indices.filter { !effects[$0].received }
        var parts: [String] = []
        if !unreceived.isEmpty {
            parts.append("\(count(unreceived.count, "effect")) emitted but never received:" + unreceived.map { "\n  " + describe($0) }.joined())
        }
        if !routes.isEmpty {
            parts.append("\(count(routes.count, "route")) emitted but never asserted:" + routes.map { "\n  " + JSONDiff.render($0.json) }.joined())
        }
        return parts.isEmpty ? nil : parts.joined(separator: "\n")
    }

    private mutating func receive(
        _ wanted: String, _ location: SourceLocation,
        matches: (Effect) -> Bool, expected: (Effect) -> Effect, standIn: Effect
    ) -> EmittedEffect {
        let label = "receiveEffect(\(wanted))"
        let open = effects.indices.filter { !effects[$0].received }
        let found: Int?
        switch exhaustivity {
        case .on:
            found = open.first
            if let i = found, !matches(effects[i].effect) {
                let actual = effects[i].effect
                fail("\(label): the next effect is \(describe(i)):" + differences(expected(actual).json, actual.json), location)
            }
        case .off:
            found = open.first { matches(effects[$0].effect) }
            if found == nil, !open.isEmpty {
                fail("\(label): none of the effects not yet received matches:" + open.map { "\n  " + describe($0) }.joined(), location)
                return EmittedEffect(index: -1, effect: standIn)
            }
        }
        guard let i = found else {
            fail("\(label): no effect was emitted that was not received already", location)
            return EmittedEffect(index: -1, effect: standIn)
        }
        effects[i].received = true
        return EmittedEffect(index: i, effect: effects[i].effect)
    }

    // MARK: - Reporting

    private mutating func fail(_ message: String, _ location: SourceLocation) {
        failures.append(message)
        Issue.record(Comment(rawValue: message), severity: .error, sourceLocation: location)
    }

    private func describe(_ i: Int) -> String {
        "#\(i) \(effects[i].effect.service).\(effects[i].effect.op) \(JSONDiff.render(effects[i].effect.json))"
    }

    private func differences(_ expected: JSON, _ actual: JSON) -> String {
        let lines = JSONDiff.lines(expected: expected, actual: actual)
        return lines.isEmpty ? "\n  (no difference in their JSON forms)" : lines.map { "\n  " + $0 }.joined()
    }

    private func count(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }
}
