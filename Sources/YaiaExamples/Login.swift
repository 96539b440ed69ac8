import YaiaCore
