import YaiaCore
import YaiaKit

/// The time a runtime's deadlines run on, in seconds: the system's monotonic
/// clock, or a manual one that moves only when told (`advance`), so that a
/// time-out is tested by advancing the clock instead of by waiting.
public enum RuntimeClock: Sendable {
    case system
    case manual(ManualClock)

    public var now: Double {
        switch self {
        case .system: return monotonicNow()
        case .manual(let clock): return clock.now
        }
    }

    var isManual: Bool {
        if case .manual = self { return true }
        return false
    }

    /// Config `"clock"`: `"system"` (the default) or `"manual"` (starting at 0).
    init(config: JSON, at pointer: String) throws(YaiaError) {
        switch config {
        case "system": self = .system
        case "manual": self = .manual(ManualClock())
        default:
            throw YaiaError(.badConfig, "\"clock\" is \"system\" or \"manual\"", at: pointer)
        }
    }
}

/// A clock that stands still until advanced.
public final class ManualClock: @unchecked Sendable {
    private let lock = Lock()
    private var seconds: Double

    public init(now: Double = 0) { seconds = now }

    public var now: Double { lock.withLock { seconds } }

    /// Moves the clock forward and returns the new time.
    @discardableResult
    func advance(by delta: Double) -> Double {
        lock.withLock {
            seconds += delta
            return seconds
        }
    }
}
