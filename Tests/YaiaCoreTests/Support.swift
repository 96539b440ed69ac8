import Testing
import YaiaCore
import YaiaKit

// Small helpers shared by the YaiaCore suites. Everything here is values only.

/// Parses JSON text that the test itself wrote and knows to be valid.
func json(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
    do {
        return try JSONParser.parse(text)
    } catch {
        Issue.record("test input does not parse: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// The YaiaError a body throws, or nil when it returns normally.
func yaiaError<T>(_ body: () throws(YaiaError) -> T) -> YaiaError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// The error of parsing `bytes`, or nil when they parse.
func parseError(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) -> YaiaError? {
    yaiaError { () throws(YaiaError) in try JSONParser.parse(bytes, maxDepth: maxDepth) }
}

func parseError(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth) -> YaiaError? {
    parseError(Array(text.utf8), maxDepth: maxDepth)
}

// MARK: - Mobius-style given / when / then for typed scenes

/// `Given(state).when(action).then(state:commands:)`: reduces typed actions on a
/// copy of a state and compares the whole result with `==`.
struct Given<S: SceneState> {
    let state: S

    init(_ state: S) { self.state = state }

    /// Reduces the actions in order; the commands are those of every reduction, in order.
    func when(_ actions: S.Action...) -> Then<S> {
        var next = state
        var commands: [Command] = []
        for action in actions { commands += next.reduce(action) }
        return Then(state: next, commands: commands)
    }
}

struct Then<S: SceneState> {
    let state: S
    let commands: [Command]

    /// Expects exactly this state and exactly these commands.
    @discardableResult
    func then(state expected: S, commands expectedCommands: [Command] = [],
              sourceLocation: SourceLocation = #_sourceLocation) -> Then<S> {
        #expect(state == expected, sourceLocation: sourceLocation)
        #expect(commands == expectedCommands, sourceLocation: sourceLocation)
        return self
    }

    /// Expects exactly this view model, compared in its JSON form (and byte for byte).
    @discardableResult
    func then(viewModel expected: JSON, sourceLocation: SourceLocation = #_sourceLocation) -> Then<S> {
        #expect(state.viewModel.json == expected, sourceLocation: sourceLocation)
        #expect(state.viewModel.json.serialized() == expected.serialized(), sourceLocation: sourceLocation)
        return self
    }
}

/// Reads a typed action from its JSON (Flux Standard Action) form.
func typedAction<S: SceneState>(_: S.Type, _ text: String) throws -> S.Action {
    let action = try Action(json: json(text))
    return try S.Action(action)
}

/// The error a scene's action parser gives for an action in JSON form.
func actionError<S: SceneState>(_: S.Type, _ text: String) throws -> YaiaError? {
    let action = try Action(json: json(text))
    return yaiaError { () throws(YaiaError) in try S.Action(action) }
}
