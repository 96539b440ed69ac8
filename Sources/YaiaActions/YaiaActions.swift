// YaiaActions: YaiaKit plus @FluxActions. Opt-in, since the macro builds
// swift-syntax; without it an Action enum that is Decodable gets the same
// reading (slower) from YaiaCore's default.
@_exported import YaiaKit

/// Writes `init(_ action: Action) throws(YaiaError)` for an Action enum: a
/// switch on the action's type with the mapping of the `Decodable` default
/// (see `SceneAction.init(_:)` where `Self: Decodable`), the same errors,
/// at a fraction of the cost.
@attached(member, names: named(init))
public macro FluxActions() = #externalMacro(module: "YaiaMacros", type: "FluxActionsMacro")
