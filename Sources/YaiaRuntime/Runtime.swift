import YaiaCore
import CYaia
