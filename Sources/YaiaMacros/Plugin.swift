import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct YaiaMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [FluxActionsMacro.self]
}
