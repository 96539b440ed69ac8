// Child scenes: the slots a scene declares, and the children its state wants
// (docs/composition.md).

/// A place in a scene for child scenes: one child, an optional one, or one
/// per key. Declared once per scene type; what fills it follows from the
/// state (`Child`).
public struct ChildSlot: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Always one child.
        case one
        /// A child while the state wants one.
        case optional
        /// One child per key, in the order the state lists them.
        case keyed
    }

    /// The slot's name: the member of the parent's view model that holds
    /// its children's, and the first step of a path to them.
    public let name: String
    /// The children's scene type: any type of the catalog.
    public let scene: String
    public let kind: Kind
    /// Whether an action sent to a child goes to the parent first, as
    /// `{"type": "NAME/willSend", "payload": {"key"?, "action"}}`: the
    /// child then gets only what the parent passes on with a `child` command.
    public var intercept: Bool
    /// A child's output type -> the parent's action type it arrives as.
    public var outputs: [String: String]
    /// The action a kept child receives, its payload the new args, when the
    /// args the parent gives it change; nil: changed args are not sent.
    public var argsAction: String?

    public init(_ name: String, scene: String, kind: Kind, intercept: Bool = false, outputs: [String: String] = [:],
                argsAction: String? = nil) {
        self.name = name
        self.scene = scene
        self.kind = kind
        self.intercept = intercept
        self.outputs = outputs
        self.argsAction = argsAction
    }

    /// The action type a parent that intercepts receives.
    public var willSend: String { name + "/willSend" }

    /// The slot as `{"scene", "kind", "intercept", "outputs", "argsAction"?}` (`schema`).
    public var json: JSON {
        var o: JSONObject = ["scene": .string(scene), "kind": .string(kind.rawValue), "intercept": .bool(intercept),
                             "outputs": .object(JSONObject(outputs.map { ($0.key, JSON.string($0.value)) }))]
        if let argsAction { o["argsAction"] = .string(argsAction) }
        return .object(o)
    }
}

/// A child a parent's state wants now: its slot, its key (null but in a
/// keyed slot, where it is a string or an integer) and its open args.
public struct Child: Sendable, Equatable {
    public let slot: String
    public let key: JSON
    public let args: JSON

    public init(slot: String, key: JSON = .null, args: JSON = [:]) {
        self.slot = slot
        self.key = key
        self.args = args
    }

    /// The child of a `one` or `optional` slot.
    public static func one(_ slot: String, args: JSON = [:]) -> Child { Child(slot: slot, args: args) }

    /// The child of a keyed slot for `key`.
    public static func keyed(_ slot: String, key: String, args: JSON = [:]) -> Child { Child(slot: slot, key: .string(key), args: args) }
    public static func keyed(_ slot: String, key: Int64, args: JSON = [:]) -> Child { Child(slot: slot, key: .int(key), args: args) }
}

/// What a parent tells one of its children with a `child` command: an
/// action for the child of `slot` (at `key`, in a keyed slot).
public struct ChildMessage: Sendable, Equatable {
    public let slot: String
    public let key: JSON
    public let action: Action

    public init(slot: String, key: JSON = .null, action: Action) {
        self.slot = slot
        self.key = key
        self.action = action
    }

    /// Reads `{"slot", "key"?, "action"}`.
    public init(json: JSON, at pointer: @autoclosure () -> String = "") throws(YaiaError) {
        guard case .object(let o) = json, case .string(let slot)? = o["slot"], !slot.isEmpty, let action = o["action"] else {
            throw YaiaError(.badRequest, "\"child\" takes {\"slot\", \"key\"?, \"action\"}", at: pointer())
        }
        let key = o["key"] ?? .null
        guard ChildMessage.isKey(key) || key == .null else {
            throw YaiaError(.badRequest, "a child's key is a string or an integer", at: JSONPointer.appending(pointer(), "key"))
        }
        self.init(slot: slot, key: key, action: try Action(json: action, at: JSONPointer.appending(pointer(), "action")))
    }

    public var json: JSON {
        var o: JSONObject = ["slot": .string(slot), "action": action.json]
        if key != .null { o["key"] = key }
        return .object(o)
    }

    /// Whether `key` can key a child: a string or an integer.
    public static func isKey(_ key: JSON) -> Bool {
        switch key {
        case .string: true
        case .int: true
        default: false
        }
    }
}
