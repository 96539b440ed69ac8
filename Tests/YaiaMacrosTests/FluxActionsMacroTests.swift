import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing
import YaiaMacros

let macros: [String: MacroSpec] = ["FluxActions": MacroSpec(type: FluxActionsMacro.self)]

func expand(_ source: String, _ expanded: String, diagnostics: [DiagnosticSpec] = [],
            sourceLocation: SourceLocation = #_sourceLocation) {
    assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macros) { failure in
        Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
    }
}

@Test func expandsEveryShape() {
    expand(
        """
        @FluxActions
        public enum Action: SceneAction {
            case emailChanged(String)
            case submit, `default`
            case loginSucceeded(user: User)
            case loginFailed(code: String?, message: String?)
            case moved(Int, _ y: Int)
        }
        """,
        """
        public enum Action: SceneAction {
            case emailChanged(String)
            case submit, `default`
            case loginSucceeded(user: User)
            case loginFailed(code: String?, message: String?)
            case moved(Int, _ y: Int)

            public init(_ action: YaiaCore.Action) throws(YaiaCore.YaiaError) {
                switch action.type {
                case "emailChanged":
                    self = .emailChanged(try action.payloadValue((String).self))
                case "submit":
                    self = .submit
                case "default":
                    self = .`default`
                case "loginSucceeded":
                    self = .loginSucceeded(user: try action.payloadMember("user", (User).self))
                case "loginFailed":
                    self = .loginFailed(code: try action.payloadMember("code", (String?).self), message: try action.payloadMember("message", (String?).self))
                case "moved":
                    self = .moved(try action.payloadElement(0, (Int).self), try action.payloadElement(1, (Int).self))
                default:
                    throw action.unknown
                }
            }
        }
        """
    )
}

@Test func rawValuesAndAccess() {
    expand(
        """
        @FluxActions
        private enum Action: String, SceneAction {
            case a = "x\\"y"
            case b
        }
        """,
        """
        private enum Action: String, SceneAction {
            case a = "x\\"y"
            case b

            fileprivate init(_ action: YaiaCore.Action) throws(YaiaCore.YaiaError) {
                switch action.type {
                case "x\\"y":
                    self = .a
                case "b":
                    self = .b
                default:
                    throw action.unknown
                }
            }
        }
        """
    )
}

@Test func diagnostics() {
    expand(
        "@FluxActions struct S {}",
        "struct S {}",
        diagnostics: [DiagnosticSpec(message: "@FluxActions applies to an enum of actions", line: 1, column: 1)]
    )
    expand(
        """
        @FluxActions
        enum A {
            case mixed(Int, name: String)
            case reserved(_1: Int)
            case number = 3
        }
        """,
        """
        enum A {
            case mixed(Int, name: String)
            case reserved(_1: Int)
            case number = 3
        }
        """,
        diagnostics: [
            DiagnosticSpec(message: "@FluxActions cannot read case 'mixed': its values must be all labeled (members of an object payload) or all unlabeled (the payload, or elements of an array payload)", line: 3, column: 10),
            DiagnosticSpec(message: "@FluxActions cannot read case 'reserved': the label '_1' reads as an unlabeled value's key; rename it", line: 4, column: 19),
            DiagnosticSpec(message: "@FluxActions cannot read case 'number': an action type is a string, and this raw value is not a string literal", line: 5, column: 17),
        ]
    )
    expand(
        """
        @FluxActions
        enum B {
            case a
            #if DEBUG
            case debug
            #endif
        }
        """,
        """
        enum B {
            case a
            #if DEBUG
            case debug
            #endif
        }
        """,
        diagnostics: [
            DiagnosticSpec(message: "@FluxActions cannot read cases inside #if; declare them unconditionally or write init(_:) by hand", line: 4, column: 5),
        ]
    )
}
