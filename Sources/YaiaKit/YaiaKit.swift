// YaiaKit: what a scene is written with. Scene authors import this module
// alone: it re-exports the scene protocol, actions, commands, effects,
// routes, the JSON value and its Codable support, and errors, and adds
// ScenePack, which turns scene types into a loadable scene pack.
@_exported import YaiaScene
