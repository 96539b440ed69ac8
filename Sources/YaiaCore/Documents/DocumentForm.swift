import YaiaKit

// A scene document's compiled form: templates, effects, routes, branches, actions, and the storage that holds them.

/// A value template: literals, expressions, and objects and arrays of them.
indirect enum Template: Sendable {
    case literal(JSON)
    /// The rule, and its JSON (which schema derivation reads).
    case rule(LogicRule, JSON)
    case object([(key: String, value: Template)])
    case array([Template])

    var literal: JSON? {
        if case .literal(let v) = self { return v }
        return nil
    }
}

struct DocumentEffect: Sendable {
    var service: String
    var op: String
    var args: Template
    var then: String?
    var `catch`: String?
    var id: Template?
    var timeout: Double?
    var policy: Effect.Policy
    var restore: Effect.RestorePolicy
    var at: String
}

enum DocumentRoute: Sendable {
    case push(String, args: Template?, onResult: String?)
    case present(String, args: Template?, onResult: String?)
    case replace(String, args: Template?)
    case pop(result: Template?)
    case dismiss(result: Template?)
    case popToRoot
    case popTo(String)
}

struct DocumentAssignment: Sendable {
    /// The path's text, as written.
    var text: String
    var path: [String]
    var value: Template
}

struct DocumentBranch: Sendable {
    var when: LogicRule?
    /// In the byte order of their paths.
    var assignments: [DocumentAssignment]
    var cancel: Template?
    var effects: [DocumentEffect]
    var route: DocumentRoute?
}

struct DocumentAction: Sendable {
    var payload: DeclaredType?
    var branches: [DocumentBranch]
}

struct DocumentArgument: Sendable {
    var type: DeclaredType
    var `default`: JSON?
    var description: String?
}

extension SceneDocument {
    final class Storage: Sendable {
        let source: JSON
        let name: String
        /// Nil: the scene takes no arguments.
        let args: [(key: String, argument: DocumentArgument)]?
        let state: [(key: String, value: Template)]
        let actions: [String: DocumentAction]
        /// Nil: the view model is the state.
        let view: [(key: String, value: Template)]?
        /// Named truth conditions over `state`, `args` and `env`, by name.
        let invariants: [(key: String, rule: LogicRule)]

        init(source: JSON, name: String, args: [(key: String, argument: DocumentArgument)]?,
             state: [(key: String, value: Template)], actions: [String: DocumentAction],
             view: [(key: String, value: Template)]?, invariants: [(key: String, rule: LogicRule)]) {
            self.source = source
            self.name = name
            self.args = args
            self.state = state
            self.actions = actions
            self.view = view
            self.invariants = invariants
        }
    }
}
