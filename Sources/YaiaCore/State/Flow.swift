import YaiaKit

/// A flow: the coordinator's navigation stack, as a value.
///
/// Entries run bottom to top. The first entry is the root; an entry whose
/// presentation is `present` starts a modal layer that the entries above it
/// (pushed inside the modal) belong to. Routes are applied by `apply`, a pure
/// reducer: it returns what the runtime must do (open, close, deliver a
/// result) and never does it itself.
public struct Flow: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public enum Presentation: String, Sendable, Equatable {
            case root, push, present
        }

        /// The scene's id in the runtime.
        public var scene: Int64
        /// The scene type's name.
        public var name: String
        public var presentation: Presentation
        /// The action that receives this scene's result, sent to the scene below.
        public var onResult: String?

        public init(scene: Int64, name: String, presentation: Presentation, onResult: String? = nil) {
            self.scene = scene
            self.name = name
            self.presentation = presentation
            self.onResult = onResult
        }

        public var json: JSON {
            var o: JSONObject = ["id": .int(scene), "scene": .string(name), "presentation": .string(presentation.rawValue)]
            if let onResult { o["onResult"] = .string(onResult) }
            return .object(o)
        }

        public init(json: JSON) throws(YaiaError) {
            guard case .object(let o) = json, let id = o["id"]?.int64Value, case .string(let name)? = o["scene"],
                  case .string(let p)? = o["presentation"], let presentation = Presentation(rawValue: p) else {
                throw YaiaError(.badSnapshot, "a flow entry is {\"id\", \"scene\", \"presentation\", \"onResult\"?}")
            }
            self.init(scene: id, name: name, presentation: presentation, onResult: o["onResult"]?.stringValue)
        }
    }

    /// What applying a route asks of the runtime, in order.
    public enum Step: Sendable, Equatable {
        /// Open a scene of type `name` with `args` under the id given.
        case open(id: Int64, name: String, args: JSON)
        /// Close these scenes (top first).
        case close([Int64])
        /// Reduce `action` on scene `to`: the result of scene `from`, popped.
        case deliver(to: Int64, action: Action, from: Int64)
    }

    public var entries: [Entry]
    /// Counts changes of `entries`, so UIs can tell stale reports apart.
    public var version: Int64

    public init(root: Entry, version: Int64 = 1) {
        var root = root
        root.presentation = .root
        self.entries = [root]
        self.version = version
    }

    public init(entries: [Entry], version: Int64) {
        self.entries = entries
        self.version = version
    }

    public var top: Entry { entries[entries.count - 1] }
    public var depth: Int { entries.count }

    /// Where the top layer starts: the last `present` entry, or the root.
    public var topLayerStart: Int { entries.lastIndex { $0.presentation == .present } ?? 0 }

    /// Applies a route asked for by scene `source`. Only the top scene
    /// navigates: a route from any other scene (a late effect outcome of a
    /// scene already covered, say) is refused with `stale_navigation`, and the
    /// flow is unchanged. `nextID` supplies ids for scenes to open.
    public mutating func apply(_ route: Route, from source: Int64, nextID: inout Int64) throws(YaiaError) -> [Step] {
        guard top.scene == source else {
            throw YaiaError(.staleNavigation, "scene \(source) is not on top of the flow (scene \(top.scene) is), so it cannot \(route.kind)")
        }
        switch route {
        case .push(let name, let args, let onResult), .present(let name, let args, let onResult):
            let id = nextID
            nextID &+= 1
            if case .present = route {
                entries.append(Entry(scene: id, name: name, presentation: .present, onResult: onResult))
            } else {
                entries.append(Entry(scene: id, name: name, presentation: .push, onResult: onResult))
            }
            version &+= 1
            return [.open(id: id, name: name, args: args ?? [:])]
        case .replace(let name, let args):
            let old = top
            let id = nextID
            nextID &+= 1
            entries[entries.count - 1] = Entry(scene: id, name: name, presentation: old.presentation, onResult: old.onResult)
            version &+= 1
            return [.close([old.scene]), .open(id: id, name: name, args: args ?? [:])]
        case .pop(let result):
            guard entries.count > 1 else {
                throw YaiaError(.staleNavigation, "the root of a flow cannot be popped")
            }
            return cut(to: entries.count - 1, result: result)
        case .dismiss(let result):
            guard let start = entries.lastIndex(where: { $0.presentation == .present }) else {
                throw YaiaError(.staleNavigation, "nothing is presented, so there is nothing to dismiss")
            }
            return cut(to: start, result: result)
        case .popToRoot:
            let start = topLayerStart
            guard entries.count > start + 1 else { return [] }
            return cut(to: start + 1, result: nil)
        case .popTo(let name):
            guard let index = entries.dropLast().lastIndex(where: { $0.name == name }) else {
                throw YaiaError(.staleNavigation, "no scene of type \(name) lies below the top of the flow")
            }
            return cut(to: index + 1, result: nil)
        }
    }

    /// The UI removed scenes by itself (a back swipe): keep the first `depth`.
    /// A depth that no longer exists is refused, so a report cannot apply twice.
    public mutating func popped(toDepth depth: Int) throws(YaiaError) -> [Step] {
        guard depth >= 1, depth < entries.count else {
            throw YaiaError(.staleNavigation, "the flow has \(counted(entries.count, "scene")) at version \(version); it cannot be popped to depth \(depth)")
        }
        return cut(to: depth, result: nil)
    }

    /// Replaces everything above the root with `path`, in one step.
    public mutating func link(_ path: [(name: String, args: JSON, presentation: Entry.Presentation)], nextID: inout Int64) -> [Step] {
        var steps: [Step] = []
        if entries.count > 1 {
            steps.append(.close(entries[1...].reversed().map(\.scene)))
            entries.removeLast(entries.count - 1)
        }
        for item in path {
            let id = nextID
            nextID &+= 1
            entries.append(Entry(scene: id, name: item.name, presentation: item.presentation))
            steps.append(.open(id: id, name: item.name, args: item.args))
        }
        version &+= 1
        return steps
    }

    /// Keeps the first `count` entries; the first removed entry's result goes
    /// to the new top as its `onResult` action.
    private mutating func cut(to count: Int, result: JSON?) -> [Step] {
        let removed = entries[count...]
        let first = removed[removed.startIndex]
        entries.removeLast(entries.count - count)
        version &+= 1
        var steps: [Step] = [.close(removed.reversed().map(\.scene))]
        if let result, let action = first.onResult {
            steps.append(.deliver(to: top.scene, action: Action(action, payload: result), from: first.scene))
        }
        return steps
    }

    public var json: JSON {
        ["entries": .array(entries.map(\.json)), "version": .int(version)]
    }

    public init(json: JSON) throws(YaiaError) {
        guard case .object(let o) = json, case .array(let list)? = o["entries"], let version = o["version"]?.int64Value, !list.isEmpty else {
            throw YaiaError(.badSnapshot, "a flow is {\"entries\": [...], \"version\"}")
        }
        var entries: [Entry] = []
        for e in list { entries.append(try Entry(json: e)) }
        self.init(entries: entries, version: version)
    }
}
