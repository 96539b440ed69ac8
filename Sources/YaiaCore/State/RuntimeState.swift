import YaiaKit

/// What a runtime's state asks of the world while it applies an input: the
/// time on the runtime's clock, whether a service is registered, and new
/// scenes of a type (a route opens them). Read only when needed.
public protocol RuntimeEnvironment {
    /// Seconds on the runtime's clock.
    var now: Double { get }
    /// The values scenes read as `env` (docs/scene-documents.md): `now` and
    /// what the host set.
    var sceneValues: JSON { get }
    func serves(_ service: String) -> Bool
    func openScene(_ name: String, args: JSON) throws(YaiaError) -> any LiveScene
}

extension RuntimeEnvironment {
    public var sceneValues: JSON { ["now": .double(now)] }
}

/// A runtime as a value: open scenes (their states and seqs), flows, the
/// effects in flight and the ids to hand out. Each input (a request, an
/// effect's outcome, a deadline) is a function of this value and the
/// environment; it answers, and returns the steps the shell must execute:
/// start or withdraw a service call, arm a deadline, queue an event, answer
/// a direct call. Threads, locks, plugins and clocks are the shell's.
public struct RuntimeState: Sendable {
    /// An open scene.
    public struct OpenScene: Sendable {
        public let id: Int64
        public var value: any LiveScene
        /// Reductions so far.
        public var seq: Int64
        /// The flow it belongs to, if any; fixed at creation.
        public let flow: Int64?
        /// The child slots its type declares, read once (most have none).
        public let slots: [ChildSlot]
        /// Its parent, slot and key, when it is a child scene.
        public internal(set) var link: ChildLink?

        public init(id: Int64, value: any LiveScene, seq: Int64 = 0, flow: Int64? = nil) {
            self.id = id
            self.value = value
            self.seq = seq
            self.flow = flow
            self.slots = value.childSlots
        }

        /// Whether it has child slots or a parent: what a reduction of it
        /// does beyond its own is then `relate`'s (StateChildren.swift).
        var inFamily: Bool { !slots.isEmpty || link != nil }

        /// Reduces in place; on error nothing changes. Returns the commands.
        mutating func reduce(_ sent: SentAction, env: () -> JSON) throws(YaiaError) -> [Command] {
            let commands = try value.reduce(sent, env: env)
            seq &+= 1
            return commands
        }
    }

    /// An open flow.
    public struct OpenFlow: Sendable, Equatable {
        public let id: Int64
        public let name: String?
        public var flow: Flow

        public init(id: Int64, name: String?, flow: Flow) {
            self.id = id
            self.name = name
            self.flow = flow
        }
    }

    /// What the shell must do once the input is applied.
    public enum Step: Sendable, Equatable {
        case effect(EffectTable.Step)
        /// Queue an event for receivers (in this order, before the runtime
        /// takes its next input).
        case event(JSON)
        /// The same, as canonical JSON text: a scene update whose view model
        /// is the scene's own text (a pack's is not parsed and written again).
        case eventText(JSONText)
        /// A scene's effect ended with an outcome: its call is done.
        case ended(Int64)
        /// A direct call ended: its outcome, or nil when it timed out (its
        /// call is then withdrawn too).
        case answer(Int64, Outcome?)
        /// Something worth a warning in the log.
        case warn(String)
    }

    /// Why a scene was reduced: a direct request (answered), or an effect's
    /// outcome or a popped scene's result (queued as an event).
    public enum Cause: Equatable, Sendable {
        case request
        case effect(Int64)
        case result(from: Int64)
    }

    public internal(set) var scenes = SceneTable()
    public internal(set) var flows: [Int64: OpenFlow] = [:]
    public internal(set) var effects: EffectTable
    public internal(set) var nextSceneID: Int64 = 1
    public internal(set) var nextFlowID: Int64 = 1
    /// Child scenes by parent (ChildTable.swift).
    var children = ChildTable()
    /// Children one scene may have, in all its slots.
    public let childLimit: Int
    /// Levels of children below a scene that has no parent.
    public let childDepthLimit: Int
    /// What view models patches start from (ViewCache.swift).
    var views = ViewCache()
    /// Queue inspection events (action, effect, route, flow).
    public var inspecting = false
    /// The "scenes" limit: open scenes at most.
    public let sceneLimit: Int
    /// The largest id handed out (2^53: exact in every JSON reader).
    public let maxID: Int64

    /// Results delivered down a flow may navigate again; this bounds the chain.
    public static let maxNavigationDepth = 16

    public init(sceneLimit: Int = 100_000, maxID: Int64 = 1 << 53, childLimit: Int = 10_000, childDepthLimit: Int = 8) {
        self.sceneLimit = sceneLimit
        self.childLimit = childLimit
        self.childDepthLimit = childDepthLimit
        self.maxID = maxID
        self.effects = EffectTable(maxID: maxID)
    }

    // MARK: scenes

    /// Opens `value` as a new scene, its view models sent in `view` mode
    /// (nil: the runtime's); answers its update.
    /// `env` opens its children, if it has any (docs/composition.md).
    public mutating func open(_ value: any LiveScene, view: ViewMode? = nil, env: (any RuntimeEnvironment)? = nil) throws(YaiaError) -> JSON {
        try checkSceneRoom()
        let id = try takeID(&nextSceneID, "scene")
        scenes[id] = OpenScene(id: id, value: value)
        let childErrors = attach(id, view: view, env: env)
        guard var update = update(id) else { return .null }
        update.childErrors = childErrors
        return update.json
    }

    /// A scene's state and view model.
    public func state(scene id: Int64) throws(YaiaError) -> JSON {
        guard let scene = scenes[id] else { throw RuntimeState.noSuchScene(id) }
        return ["ok": true, "scene": .int(id), "name": .string(scene.value.name), "seq": .int(scene.seq),
                "state": try scene.value.json, "viewModel": viewModel(of: id)]
    }

    /// Closes a scene outside any flow; its effects end without an outcome.
    public mutating func close(scene id: Int64, steps: inout [Step]) throws(YaiaError) {
        guard let scene = scenes[id] else { throw RuntimeState.noSuchScene(id) }
        if let flow = scene.flow {
            throw YaiaError(.sceneInFlow, "scene \(id) belongs to flow \(flow): navigate (pop, dismiss) or close the flow")
        }
        if let link = scene.link {
            throw YaiaError(.sceneIsChild, "scene \(id) is a child of scene \(link.parent): it closes when its parent's state no longer wants it")
        }
        remove(scenes: [id], steps: &steps)
    }

    /// Open scenes and flows, for `{"op":"scenes"}`.
    public var listing: (scenes: [JSON], flows: [JSON]) {
        let open = scenes.values.map { scene in
            var o: JSONObject = ["id": .int(scene.id), "name": .string(scene.value.name), "seq": .int(scene.seq)]
            if let link = scene.link { o["parent"] = .int(link.parent) }
            return JSON.object(o)
        }
        let flowList = flows.values.sorted { $0.id < $1.id }.map { flow -> JSON in
            var o: JSONObject = ["id": .int(flow.id), "version": .int(flow.flow.version), "depth": .int(Int64(flow.flow.depth))]
            if let name = flow.name { o["name"] = .string(name) }
            return .object(o)
        }
        return (open, flowList)
    }

    /// Hands out the id `counter` holds and counts on; `ids_exhausted` past `maxID`.
    func takeID(_ counter: inout Int64, _ kind: String) throws(YaiaError) -> Int64 {
        guard counter <= maxID else { throw idsExhausted(kind) }
        defer { counter += 1 }
        return counter
    }

    func idsExhausted(_ kind: String) -> YaiaError {
        YaiaError(.idsExhausted, "no \(kind) ids are left: ids end at \(maxID)")
    }

    /// `limit_exceeded` when more scenes would pass the "scenes" limit.
    func checkSceneRoom(adding count: Int = 1) throws(YaiaError) {
        guard scenes.count + count <= sceneLimit else {
            throw YaiaError.limit("scenes", sceneLimit, "\(counted(scenes.count, "scene")) \(scenes.count == 1 ? "is" : "are") open")
        }
    }

    public static func noSuchScene(_ id: Int64) -> YaiaError {
        YaiaError(.noSuchScene, "no open scene with id \(id)")
    }

    public static func noSuchFlow(_ id: Int64) -> YaiaError {
        YaiaError(.noSuchFlow, "no flow with id \(id)")
    }
}
