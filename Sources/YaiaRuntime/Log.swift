import Glibc

/// The runtime's log: stderr, filtered by YAIA_LOG (debug, info, warning,
/// error, off; warning by default). Plugins write to it through the host API.
public enum Log {
    public enum Level: Int32, Sendable, Comparable {
        case debug = 0, info, warning, error, off
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        var name: String {
            switch self {
            case .debug: return "debug"
            case .info: return "info"
            case .warning: return "warning"
            case .error: return "error"
            case .off: return "off"
            }
        }
    }

    static let threshold: Level = {
        guard let raw = getenv("YAIA_LOG") else { return .warning }
        switch String(cString: raw).lowercased() {
        case "debug": return .debug
        case "info": return .info
        case "error": return .error
        case "off", "none": return .off
        default: return .warning
        }
    }()

    /// Whether a message at `level` is written: ask before building one.
    static func enabled(_ level: Level) -> Bool { level >= threshold && level != .off }

    public static func write(_ level: Level, _ source: String, _ message: String) {
        guard enabled(level) else { return }
        let line = "yaia \(level.name) [\(source)]: \(message)\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
