// YaiaCore: the logic engine, scene documents, scenarios and the runtime's
// state, built on YaiaScene (what a scene is written with), which every
// module that imports this one sees too.
@_exported import YaiaScene
