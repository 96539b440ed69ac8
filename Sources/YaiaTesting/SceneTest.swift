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
    /// Every failure recorded so far, in order.
    public private(set) var failures: [String] = []
    /// What the scene said as a child, in order: its outputs and its
    /// actions for its own children (`.output`, `.child` commands), as values.
    public private(set) var said: [Command] = []

    /// What was emitted and is still to be asserted, by the one set of exhaustive rules.
    private var rules: ExhaustiveRules
    /// The effects emitted, typed, by their index in `rules`.
    private var effects: [Effect] = []

    /// With exhaustivity on, everything is asserted.
    public var exhaustivity: Exhaustivity {
        get { rules.exhaustive ? .on : .off }
        set { rules.exhaustive = newValue == .on }
    }

    public init(_ state: S, exhaustivity: Exhaustivity = .on) {
        self.state = state
        self.rules = ExhaustiveRules(exhaustive: exhaustivity == .on)
    }

    /// Opens the scene the way a runtime does, from open arguments.
    public init(_ type: S.Type, args: JSON = [:], exhaustivity: Exhaustivity = .on) throws(YaiaError) {
        self.init(try S(args: args), exhaustivity: exhaustivity)
    }

    /// The effects still waiting for an outcome, in the order emitted.
    public var pendingEffects: [EmittedEffect] {
        effects.indices.filter { rules.effects[$0].isInFlight }.map { EmittedEffect(index: $0, effect: effects[$0]) }
    }

    // MARK: - Inputs

    /// Reduces a typed action; `assert` turns the previous state into the expected one.
    public mutating func send(
        _ action: S.Action, assert expect: ((inout S) throws -> Void)? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let location = SceneTest.location(fileID, filePath, line)
        let label = "send(\(action))"
        checkAsserted(before: label, location)
        reduce(action, label: label, expect: expect, location)
    }

    /// Reduces an action given as a Flux Standard Action, read as the runtime
    /// reads it; an action the scene refuses is a failure that changes nothing.
    public mutating func send(
        _ action: Action, assert expect: ((inout S) throws -> Void)? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let location = SceneTest.location(fileID, filePath, line)
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
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        send(Action(type, payload: payload), assert: expect, fileID: fileID, filePath: filePath, line: line)
    }

    /// Ends an in-flight effect with an outcome: its `then` or `catch` action
    /// is reduced and the new state asserted. Without that action the outcome
    /// is dropped and the state must stay as it is.
    public mutating func resolve(
        _ handle: EmittedEffect, with outcome: Outcome, assert expect: ((inout S) throws -> Void)? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let location = SceneTest.location(fileID, filePath, line)
        let label: String
        switch outcome {
        case .success(let v): label = "resolve(\(handle), with: .success(\(JSONDiff.render(v))))"
        case .failure(let v): label = "resolve(\(handle), with: .failure(\(JSONDiff.render(v))))"
        }
        // The stand-in from a failed receiveEffect: that failure was recorded already.
        guard handle.index >= 0 else { return }
        let i = handle.index
        guard i < effects.count, effects[i] == handle.effect else {
            fail("\(label): this test emitted no such effect", location)
            return
        }
        let effect = effects[i]
        // As the runtime queues: behind an earlier effect in flight with its id.
        if effect.policy == .queue, let key = effect.id {
            rules.update(i, queued: effects[..<i].indices.contains { rules.effects[$0].isInFlight && effects[$0].id == key })
        }
        if let failure = rules.resolving(i) {
            fail("\(label): " + failure.text, location)
            return
        }
        checkAsserted(before: label, location)
        guard let action = effect.outcomeAction(outcome) else {
            rules.resolved(i)
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
        rules.resolved(i)
        reduce(typed, label: label, expect: expect, location)
    }

    // MARK: - Assertions on what the reducer emitted

    /// Asserts the next effect not yet received (with `exhaustivity: .off`,
    /// any one) by service and operation, and by its arguments when given.
    @discardableResult
    public mutating func receiveEffect(
        service: String, op: String, args: JSON? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) -> EmittedEffect {
        let location = SceneTest.location(fileID, filePath, line)
        let wanted = "\(service).\(op)" + (args.map { " with args \(JSONDiff.render($0))" } ?? "")
        var members: [(key: String, value: JSON?)] = [("service", .string(service)), ("op", .string(op))]
        if let args { members.append(("args", args)) }
        return receive(wanted, .members(members), standIn: Effect(service: service, op: op, args: args ?? .null), location)
    }

    /// Asserts the next effect not yet received (with `exhaustivity: .off`,
    /// any one) in full: then, catch, id, policy and all.
    @discardableResult
    public mutating func receiveEffect(
        _ expected: Effect,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) -> EmittedEffect {
        let location = SceneTest.location(fileID, filePath, line)
        return receive(JSONDiff.render(expected.json), .whole(expected.json), standIn: expected, location)
    }

    /// Asserts the next route not yet asserted (with `exhaustivity: .off`, any one).
    public mutating func expectRoute(
        _ expected: Route,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let location = SceneTest.location(fileID, filePath, line)
        let label = "expectRoute(\(JSONDiff.render(expected.json)))"
        if let failure = rules.expectRoute(expected.json) { fail("\(label): " + failure.text, location) }
    }

    /// Asserts the current view model.
    public mutating func expectViewModel(
        _ expected: S.ViewModel,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let actual = state.viewModel
        guard actual != expected else { return }
        let location = SceneTest.location(fileID, filePath, line)
        let lines = JSONDiff.lines(expected: expected.json, actual: actual.json)
        fail("expectViewModel: the view model is not the expected one:"
             + (lines.isEmpty ? "\n  (no difference in their JSON forms)" : lines.map { "\n  " + $0 }.joined()), location)
    }

    /// Asserts a property of the current view model.
    public mutating func expectViewModel(
        _ predicate: (S.ViewModel) throws -> Bool,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let location = SceneTest.location(fileID, filePath, line)
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
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let location = SceneTest.location(fileID, filePath, line)
        if let failure = rules.finish() { fail("finish: " + failure.text, location) }
    }

    // MARK: - Steps

    private mutating func reduce(_ action: S.Action, label: String, expect: ((inout S) throws -> Void)?, _ location: SourceLocation) {
        let previous = state
        let commands = state.reduce(action)
        for command in commands {
            switch command {
            case .effect(let e):
                if let key = e.id, e.policy == .latest {
                    rules.cancel(key: key, by: "#\(effects.count) \(e.service).\(e.op) (policy latest, id \"\(key)\")")
                }
                effects.append(e)
                rules.emitted(effect: e.json)
            case .route(let r):
                rules.emitted(route: r.json)
            case .cancel(let key):
                rules.cancel(key: key, by: ".cancel(\"\(key)\") from \(label)")
            case .output, .child:
                said.append(command)
            }
        }
        checkState(previous: previous, label: label, expect: expect, location)
    }

    /// With exhaustivity on, the state must be the previous one changed by
    /// `expect`; off, the changes `expect` makes must already hold.
    private mutating func checkState(previous: S, label: String, expect: ((inout S) throws -> Void)?, _ location: SourceLocation) {
        guard let base = rules.stateBase(stated: expect != nil) else { return }
        var expected = base == .previous ? previous : state
        if let expect {
            do {
                try expect(&expected)
            } catch {
                fail("\(label): the state closure threw \(error)", location)
                return
            }
        }
        guard expected != state else { return }
        if let failure = rules.state(expected: expected.json, actual: state.json, stated: true) {
            fail("\(label): " + failure.text, location)
        } else {
            fail("\(label): the state is not the expected one, though their JSON forms are equal:"
                 + "\n  expected: \(expected)\n  actual:   \(state)", location)
        }
    }

    /// What the previous input emitted must be asserted before the next one.
    private mutating func checkAsserted(before label: String, _ location: SourceLocation) {
        if let failure = rules.beforeInput() { fail("\(label): " + failure.text, location) }
    }

    private mutating func receive(
        _ wanted: String, _ expectation: ExhaustiveRules.EffectExpectation, standIn: Effect, _ location: SourceLocation
    ) -> EmittedEffect {
        let (found, failure) = rules.receive(expectation)
        if let failure { fail("receiveEffect(\(wanted)): " + failure.text, location) }
        guard let i = found else { return EmittedEffect(index: -1, effect: standIn) }
        return EmittedEffect(index: i, effect: effects[i])
    }

    // MARK: - Reporting

    /// Where a failure is reported: the caller's line. The column is left
    /// out, which keeps every call within six parameters.
    private static func location(_ fileID: String, _ filePath: String, _ line: Int) -> SourceLocation {
        SourceLocation(fileID: fileID, filePath: filePath, line: line, column: 1)
    }

    private mutating func fail(_ message: String, _ location: SourceLocation) {
        failures.append(message)
        Issue.record(Comment(rawValue: message), severity: .error, sourceLocation: location)
    }

}
