import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@FluxActions` on an Action enum: writes `init(_ action: YaiaCore.Action)`
/// as a switch on the action's type, reading each case's values the way the
/// Decodable default of YaiaCore's SceneCoding.swift does (see the readers
/// in YaiaCore's FluxReading.swift, which keep the errors the same).
public struct FluxActionsMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let decl = declaration.as(EnumDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: FluxDiagnostic.notAnEnum))
            return []
        }
        var arms: [String] = []
        var failed = false
        for member in decl.memberBlock.members {
            if let ifConfig = member.decl.as(IfConfigDeclSyntax.self), containsCases(ifConfig) {
                // The expansion cannot know which branch is compiled.
                context.diagnose(Diagnostic(node: ifConfig, message: FluxDiagnostic.conditionalCases))
                failed = true
                continue
            }
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in caseDecl.elements {
                switch arm(for: element) {
                case .success(let text): arms.append(text)
                case .failure(let problem):
                    context.diagnose(Diagnostic(node: problem.node, message: problem.message))
                    failed = true
                }
            }
        }
        if failed { return [] }
        let body = (arms + ["default: throw action.unknown"]).map { "    " + $0 }.joined(separator: "\n")
        let initializer: DeclSyntax = """
            \(raw: access(of: decl))init(_ action: YaiaCore.Action) throws(YaiaCore.YaiaError) {
                switch action.type {
            \(raw: body)
                }
            }
            """
        return [initializer]
    }

    struct Problem: Error {
        let node: Syntax
        let message: FluxDiagnostic
    }

    /// `case "name": self = .name(...)` for one case.
    static func arm(for element: EnumCaseElementSyntax) -> Result<String, Problem> {
        let name = element.name.identifier?.name ?? element.name.text
        var type = name
        if let raw = element.rawValue {
            // A raw-value enum's Decodable default reads the raw value as the type.
            guard let literal = raw.value.as(StringLiteralExprSyntax.self), let text = literal.representedLiteralValue else {
                return .failure(Problem(node: Syntax(raw), message: .rawValue(name)))
            }
            type = text
        }
        let label = "case \(stringLiteral(type)): self = .\(element.name.text)"
        guard let parameters = element.parameterClause?.parameters, !parameters.isEmpty else {
            // No values: the payload is not read, whatever it is.
            return .success(label)
        }
        let labels = parameters.map { $0.firstName.flatMap { $0.tokenKind == .wildcard ? nil : $0.identifier?.name ?? $0.text } }
        let labeled = labels.filter { $0 != nil }.count
        if labeled != 0 && labeled != labels.count {
            return .failure(Problem(node: Syntax(element), message: .mixedLabels(name)))
        }
        var values: [String] = []
        for (parameter, label) in zip(parameters, labels) {
            let valueType = parameter.type.trimmedDescription
            if let label {
                // Swift's coding keys for a case's values: `_0`, `_1`, ... stand
                // for unlabeled ones, so a label spelled like that is ambiguous.
                if isUnlabeledKey(label) {
                    return .failure(Problem(node: Syntax(parameter), message: .reservedLabel(name, label)))
                }
                values.append("\(parameter.firstName!.text): try action.payloadMember(\(stringLiteral(label)), (\(valueType)).self)")
            } else if parameters.count == 1 {
                values.append("try action.payloadValue((\(valueType)).self)")
            } else {
                values.append("try action.payloadElement(\(values.count), (\(valueType)).self)")
            }
        }
        return .success(label + "(" + values.joined(separator: ", ") + ")")
    }

    static func containsCases(_ ifConfig: IfConfigDeclSyntax) -> Bool {
        ifConfig.clauses.contains { clause in
            switch clause.elements {
            case .decls(let members)?:
                return members.contains { $0.decl.is(EnumCaseDeclSyntax.self) || ($0.decl.as(IfConfigDeclSyntax.self).map(containsCases) ?? false) }
            default: return false
            }
        }
    }

    static func isUnlabeledKey(_ s: String) -> Bool {
        s.count > 1 && s.first == "_" && s.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
    }

    static func stringLiteral(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += "\\u{\(String(scalar.value, radix: 16))}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    /// The enum's access level for the initializer, as a conformance needs it.
    static func access(of decl: EnumDeclSyntax) -> String {
        for modifier in decl.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public): return "public "
            case .keyword(.package): return "package "
            // A private type's `private` members would be hidden from its conformance.
            case .keyword(.private), .keyword(.fileprivate): return "fileprivate "
            default: continue
            }
        }
        return ""
    }
}

enum FluxDiagnostic: DiagnosticMessage {
    case notAnEnum
    case mixedLabels(String)
    case reservedLabel(String, String)
    case rawValue(String)
    case conditionalCases

    var message: String {
        switch self {
        case .notAnEnum:
            return "@FluxActions applies to an enum of actions"
        case .mixedLabels(let name):
            return "@FluxActions cannot read case '\(name)': its values must be all labeled (members of an object payload) or all unlabeled (the payload, or elements of an array payload)"
        case .reservedLabel(let name, let label):
            return "@FluxActions cannot read case '\(name)': the label '\(label)' reads as an unlabeled value's key; rename it"
        case .rawValue(let name):
            return "@FluxActions cannot read case '\(name)': an action type is a string, and this raw value is not a string literal"
        case .conditionalCases:
            return "@FluxActions cannot read cases inside #if; declare them unconditionally or write init(_:) by hand"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAnEnum: id = "notAnEnum"
        case .mixedLabels: id = "mixedLabels"
        case .reservedLabel: id = "reservedLabel"
        case .rawValue: id = "rawValue"
        case .conditionalCases: id = "conditionalCases"
        }
        return MessageID(domain: "YaiaMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}
