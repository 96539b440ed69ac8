import YaiaCore
import YaiaKit

// The whole view model on request, for hosts that receive patches.

extension Runtime {
    /// `{"op":"view"}`: scene `id`'s whole view model and its seq. A scene
    /// in patch mode sends its next patch against this view model: a host
    /// that missed an update asks it, and goes on from there.
    public func view(scene id: Int64) throws(YaiaError) -> JSON {
        try lock.withLock { () throws(YaiaError) -> JSON in try state.currentView(scene: id) }
    }

    /// The runtime's view mode (config `"view"`): how scenes opened without
    /// a mode of their own send their view models.
    public var viewMode: ViewMode { lock.withLock { state.viewMode } }
}
