@testable import Notes
import Testing
import YaiaKit
import YaiaTesting

/// The error `body` throws; a recorded issue (and nil) when it throws none.
func thrown<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> YaiaError? {
    do {
        _ = try body()
        Issue.record("expected an error", sourceLocation: sourceLocation)
    } catch let error as YaiaError {
        return error
    } catch {
        Issue.record("expected a YaiaError, not \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A state survives its JSON form: what snapshots and journals rely on.
func roundTrips<S: SceneState>(_ state: S) -> Bool {
    (try? S(json: state.json)) == state
}

let ada = User(email: "ada@example.com")
