/// A value entering a scene: a Flux Standard Action.
public struct Action: Sendable, Equatable, JSONMembers {
    public var type: String
    public var payload: JSON?
    /// FSA: true when `payload` describes a failure (catch actions set it).
    public var error: Bool
    public var meta: JSON?

    public init(_ type: String, payload: JSON? = nil, error: Bool = false, meta: JSON? = nil) {
        self.type = type
        self.payload = payload
        self.error = error
        self.meta = meta
    }

    /// Reads an action object; `at` locates it in the request for errors.
    public init(json: JSON, at pointer: String = "") throws(YaiaError) {
        guard case .object(let o) = json else {
            throw YaiaError(.notAnObject, "an action must be an object, not \(json.kindName)", at: pointer)
        }
        guard case .string(let type)? = o["type"] else {
            throw YaiaError(.missingActionType, "the action has no string \"type\"", at: JSONPointer.appending(pointer, "type"))
        }
        var error = false
        if let e = o["error"] {
            guard case .bool(let b) = e else {
                throw YaiaError(.badPayload, "the action's \"error\" must be a boolean", at: JSONPointer.appending(pointer, "error"))
            }
            error = b
        }
        self.init(type, payload: o["payload"], error: error, meta: o["meta"])
    }

    /// The members of its JSON form, in key order: its text and its tree.
    public func members<Sink: JSONMemberSink>(into sink: inout Sink) {
        if error { sink.member("error", true) }
        if let meta { sink.member("meta", meta) }
        if let payload { sink.member("payload", payload) }
        sink.member("type", string: type)
    }
}

/// An IO request, as data. Its outcome comes back as the `then` action
/// (payload: the result) or the `catch` action (payload: the error, with
/// `error: true`). Without a `then` or `catch`, that outcome is dropped.
public struct Effect: Sendable, Equatable, JSONMembers {
    /// How an effect relates to others with the same `id` in its scene.
    public enum Policy: String, Sendable, Equatable, CaseIterable {
        /// Runs alongside the others (the default).
        case concurrent
        /// Cancels the ones in flight, then runs.
        case latest
        /// Waits until the earlier ones have ended: one at a time, in order.
        case queue
    }

    /// What becomes of the effect, still in flight, when a snapshot is restored.
    public enum RestorePolicy: String, Sendable, Equatable, CaseIterable {
        /// Perform it again (idempotent reads).
        case reissue
        /// Deliver the catch action with `{"code": "interrupted"}` (the default:
        /// no IO is repeated unless the logic asks for it).
        case cancel
        /// Leave it pending for the host to resolve.
        case await
    }

    // The fields live in one shared box, copied on write: an effect is
    // copied from reducer to table to record to call, and a copy then
    // retains one object instead of each of its strings.
    // Usable from inline code, with the member writers: a runtime's writer
    // of updates, specialized for its text, writes an effect's record inline.
    @usableFromInline struct Fields: Equatable {
        @usableFromInline var service: String
        @usableFromInline var op: String
        @usableFromInline var args: JSON
        @usableFromInline var then: String?
        @usableFromInline var `catch`: String?
        @usableFromInline var options: Options

        // Mutating, though they change nothing: so they read the fields in
        // the box, where a plain method would first copy them out of it
        // (retaining each string). Only the thread that made the effect, or
        // the one holding the runtime's lock, writes it, while no call has it.
        @inlinable
        mutating func members<Sink: JSONMemberSink>(into sink: inout Sink) {
            sink.member("args", args)
            if let `catch` { sink.member("catch", string: `catch`) }
            if let id = options.id { sink.member("id", string: id) }
            sink.member("op", string: op)
            if options.policy != .concurrent { sink.member("policy", string: options.policy.rawValue) }
            if options.restore != .cancel { sink.member("restore", string: options.restore.rawValue) }
            sink.member("service", string: service)
            if let then { sink.member("then", string: then) }
            if let timeout = options.timeout { sink.member("timeout", JSON(timeout)) }
        }

        /// The members of its record in a scene update (`EffectTable.Record`).
        @inlinable
        mutating func recordMembers<Sink: JSONMemberSink>(id record: Int64, status: String, into sink: inout Sink) {
            sink.member("args", args)
            sink.member("id", int: record)
            if let id = options.id { sink.member("key", string: id) }
            sink.member("op", string: op)
            sink.member("service", string: service)
            sink.member("status", string: status)
        }
    }

    @usableFromInline final class Box: @unchecked Sendable {
        @usableFromInline var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    @usableFromInline var box: Box

    private var unique: Box {
        mutating get {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            return box
        }
    }

    public var service: String {
        get { box.fields.service }
        set { unique.fields.service = newValue }
    }
    public var op: String {
        get { box.fields.op }
        set { unique.fields.op = newValue }
    }
    public var args: JSON {
        get { box.fields.args }
        set { unique.fields.args = newValue }
    }
    public var then: String? {
        get { box.fields.then }
        set { unique.fields.then = newValue }
    }
    public var `catch`: String? {
        get { box.fields.catch }
        set { unique.fields.catch = newValue }
    }
    public var options: Options {
        get { box.fields.options }
        set { unique.fields.options = newValue }
    }
    /// A cancellation key chosen by the reducer, scoped to its scene.
    public var id: String? {
        get { box.fields.options.id }
        set { unique.fields.options.id = newValue }
    }
    /// Seconds the effect may take once started; then its `catch` action
    /// gets `{"code": "timeout"}`.
    public var timeout: Double? {
        get { box.fields.options.timeout }
        set { unique.fields.options.timeout = newValue }
    }
    public var policy: Policy {
        get { box.fields.options.policy }
        set { unique.fields.options.policy = newValue }
    }
    public var restore: RestorePolicy {
        get { box.fields.options.restore }
        set { unique.fields.options.restore = newValue }
    }

    /// The rarely set members of an effect, together: its key, deadline and
    /// policies. The defaults are those of an effect that names none.
    public struct Options: Sendable, Equatable {
        public var id: String?
        public var timeout: Double?
        public var policy: Policy
        public var restore: RestorePolicy

        public init(id: String? = nil, timeout: Double? = nil, policy: Policy = .concurrent, restore: RestorePolicy = .cancel) {
            self.id = id
            self.timeout = timeout
            self.policy = policy
            self.restore = restore
        }
    }

    public init(service: String, op: String, args: JSON = .null, then: String? = nil, catch: String? = nil,
                options: Options = Options()) {
        box = Box(Fields(service: service, op: op, args: args, then: then, catch: `catch`, options: options))
    }

    public static func == (a: Effect, b: Effect) -> Bool { a.box === b.box || a.box.fields == b.box.fields }

    /// Reads an effect object; `at` locates it in the request for errors.
    public init(json: JSON, at pointer: @autoclosure () -> String = "") throws(YaiaError) {
        guard case .object(let o) = json else {
            throw YaiaError(.notAnObject, "an effect must be an object, not \(json.kindName)", at: pointer())
        }
        var reading = EffectReading()
        for member in o.members { reading.take(member.key, member.value) }
        self = try reading.effect(at: pointer)
    }

    @inlinable
    public func members<Sink: JSONMemberSink>(into sink: inout Sink) { box.fields.members(into: &sink) }

    /// The members of a record of this effect (`EffectTable.Record`).
    @inlinable
    package func recordMembers<Sink: JSONMemberSink>(id: Int64, status: String, into sink: inout Sink) {
        box.fields.recordMembers(id: id, status: status, into: &sink)
    }

    /// The action that delivers an outcome, if the effect asked for one.
    package func outcomeAction(_ outcome: Outcome) -> Action? {
        switch outcome {
        case .success(let result): return then.map { Action($0, payload: result) }
        case .failure(let error): return self.catch.map { Action($0, payload: error, error: true) }
        }
    }
}

/// How an effect ended: with a result or with an error value.
public enum Outcome: Sendable, Equatable {
    case success(JSON)
    case failure(JSON)
}

/// Navigation intent: where to go, not how. A flow applies it (see Flow).
public enum Route: Sendable, Equatable, JSONForm {
    /// Onto the current stack. `onResult` names the action that delivers the
    /// pushed scene's result (from pop or dismiss) to the scene below it.
    case push(String, args: JSON? = nil, onResult: String? = nil)
    /// A modal layer over the current stack; it can push inside itself.
    case present(String, args: JSON? = nil, onResult: String? = nil)
    /// The top scene, swapped for another in the same place.
    case replace(String, args: JSON? = nil)
    case pop(result: JSON? = nil)
    case dismiss(result: JSON? = nil)
    /// Down to the first scene of the current layer.
    case popToRoot
    /// Down to the nearest scene of that type.
    case popTo(String)

    public var kind: String {
        switch self {
        case .push: return "push"
        case .present: return "present"
        case .replace: return "replace"
        case .pop: return "pop"
        case .dismiss: return "dismiss"
        case .popToRoot: return "popToRoot"
        case .popTo: return "popTo"
        }
    }

    /// `{"push": NAME, "args": ..., "onResult": ...}`, `{"pop": true, "result": ...}`,
    /// `{"popToRoot": true}`, `{"popTo": NAME}`.
    public var json: JSON {
        var o = JSONObject()
        switch self {
        case .push(let scene, let args, let onResult), .present(let scene, let args, let onResult):
            o[kind] = .string(scene)
            if let args { o["args"] = args }
            if let onResult { o["onResult"] = .string(onResult) }
        case .replace(let scene, let args):
            o[kind] = .string(scene)
            if let args { o["args"] = args }
        case .pop(let result), .dismiss(let result):
            o[kind] = true
            if let result { o["result"] = result }
        case .popToRoot:
            o[kind] = true
        case .popTo(let scene):
            o[kind] = .string(scene)
        }
        return .object(o)
    }

    public func write(into w: inout JSONWriter) { w.write(json) }

    /// Reads a route from its JSON form.
    public init(json: JSON, at pointer: String = "") throws(YaiaError) {
        guard case .object(let o) = json else {
            throw YaiaError(.badRoute, "a route must be an object, not \(json.kindName)", at: pointer)
        }
        func scene(_ key: String) throws(YaiaError) -> String {
            try o.string(key, code: .badRoute, under: pointer, nonEmpty: true)
        }
        let onResult = o["onResult"]?.stringValue
        if o["push"] != nil { self = .push(try scene("push"), args: o["args"], onResult: onResult) }
        else if o["present"] != nil { self = .present(try scene("present"), args: o["args"], onResult: onResult) }
        else if o["replace"] != nil { self = .replace(try scene("replace"), args: o["args"]) }
        else if o["pop"] != nil { self = .pop(result: o["result"]) }
        else if o["dismiss"] != nil { self = .dismiss(result: o["result"]) }
        else if o["popToRoot"] != nil { self = .popToRoot }
        else if o["popTo"] != nil { self = .popTo(try scene("popTo")) }
        else { throw YaiaError(.badRoute, "a route needs one of push, present, replace, pop, dismiss, popToRoot, popTo", at: pointer) }
    }
}

/// What a reducer asks for.
public enum Command: Sendable, Equatable, JSONMembers {
    case effect(Effect)
    case route(Route)
    /// Cancels the scene's effects with this `id`: their outcomes are never delivered.
    case cancel(String)
    /// What a child says to its parent: the action its slot maps to a
    /// parent's action (docs/composition.md). A scene without a parent says it to no one.
    case output(Action)
    /// An action for one of the scene's own children.
    case child(ChildMessage)

    /// Reads `{"effect": {...}}`, `{"route": {...}}`, `{"cancel": "id"}`,
    /// `{"output": ACTION}` or `{"child": {"slot", "key"?, "action"}}`.
    public init(json: JSON, at pointer: @autoclosure () -> String = "") throws(YaiaError) {
        guard case .object(let o) = json, o.count == 1, let member = o.members.first else {
            throw YaiaError(.badRequest, "a command is {\"effect\": ...}, {\"route\": ...}, {\"cancel\": \"id\"}, {\"output\": ...} or {\"child\": ...}", at: pointer())
        }
        var at: String { JSONPointer.appending(pointer(), member.key) }
        switch member.key {
        case "effect": self = .effect(try Effect(json: member.value, at: at))
        case "route": self = .route(try Route(json: member.value, at: at))
        case "cancel":
            guard case .string(let key) = member.value, !key.isEmpty else {
                throw YaiaError(.badRequest, "\"cancel\" takes an effect id", at: at)
            }
            self = .cancel(key)
        case "output": self = .output(try Action(json: member.value, at: at))
        case "child": self = .child(try ChildMessage(json: member.value, at: at))
        default:
            throw YaiaError(.badRequest, "unknown command \"\(member.key)\"", at: at)
        }
    }

    public func members<Sink: JSONMemberSink>(into sink: inout Sink) {
        switch self {
        case .effect(let e): sink.member("effect", form: e)
        case .route(let r): sink.member("route", r.json)
        case .cancel(let key): sink.member("cancel", string: key)
        case .output(let action): sink.member("output", action.json)
        case .child(let message): sink.member("child", message.json)
        }
    }
}
