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
    /// An output to the scene's parent, and an action for one of its children (docs/composition.md).
    var output: Template?
    var child: Template?
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
        /// The initial state's template and the view model's.
        struct Templates: Sendable {
            var state: [(key: String, value: Template)]
            /// Nil: the view model is the state.
            var view: [(key: String, value: Template)]?
            /// The child slots, in the document's order, with the templates that fill them.
            var children: [DocumentChild] = []
        }

        let templates: Templates
        let actions: [String: DocumentAction]
        /// Named truth conditions over `state`, `args` and `env`, by name.
        let invariants: [(key: String, rule: LogicRule)]
        var children: [DocumentChild] { templates.children }

        var state: [(key: String, value: Template)] { templates.state }
        var view: [(key: String, value: Template)]? { templates.view }

        init(source: JSON, name: String, args: [(key: String, argument: DocumentArgument)]?, templates: Templates,
             actions: [String: DocumentAction], invariants: [(key: String, rule: LogicRule)]) {
            self.source = source
            self.name = name
            self.args = args
            self.templates = templates
            self.actions = actions
            self.invariants = invariants
        }
    }
}
