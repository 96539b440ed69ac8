/// A value entering a scene: a Flux Standard Action.
public struct Action: Sendable, Equatable {
    public var type: String
    public var payload: JSON?
    /// FSA: true when `payload` describes a failure (catch actions set it).
    public var error: Bool
    public var meta: JSON?
    /// True when the action was read from text without building its
    /// payload (`Action(parsing:skippingPayload:)`): `payload` is then nil,
    /// and the payload is in that text.
    public internal(set) var payloadSkipped = false

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

    /// Writes `json`'s text without building it.
    package func write(into w: inout JSONWriter) {
        w.raw("{")
        if error { w.raw("\"error\":true,") }
        if let meta { w.raw("\"meta\":"); w.write(meta); w.raw(",") }
        if let payload { w.raw("\"payload\":"); w.write(payload); w.raw(",") }
        w.raw("\"type\":")
        w.writeString(type)
        w.raw("}")
    }

    public var json: JSON {
        // Members in key order: error, meta, payload, type.
        var m: [JSONObject.Member] = []
        m.reserveCapacity(4)
        if error { m.append(.init(key: "error", value: true)) }
        if let meta { m.append(.init(key: "meta", value: meta)) }
        if let payload { m.append(.init(key: "payload", value: payload)) }
        m.append(.init(key: "type", value: .string(type)))
        return .object(JSONObject(members: m))
    }
}

/// An IO request, as data. Its outcome comes back as the `then` action
/// (payload: the result) or the `catch` action (payload: the error, with
/// `error: true`). Without a `then` or `catch`, that outcome is dropped.
public struct Effect: Sendable, Equatable {
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
    private struct Fields: Equatable {
        var service: String
        var op: String
        var args: JSON
        var then: String?
        var `catch`: String?
        var id: String?
        var timeout: Double?
        var policy: Policy
        var restore: RestorePolicy

        // Mutating, though they change nothing: so they read the fields in
        // the box, where a plain method would first copy them out of it
        // (retaining each string). Only the thread that made the effect, or
        // the one holding the runtime's lock, writes it, while no call has it.
        mutating func write(into w: inout JSONWriter) {
            w.raw("{\"args\":")
            w.write(args)
            if let `catch` { w.raw(",\"catch\":"); w.writeString(`catch`) }
            if let id { w.raw(",\"id\":"); w.writeString(id) }
            w.raw(",\"op\":")
            w.writeString(op)
            if policy != .concurrent { w.raw(",\"policy\":"); w.writeString(policy.rawValue) }
            if restore != .cancel { w.raw(",\"restore\":"); w.writeString(restore.rawValue) }
            w.raw(",\"service\":")
            w.writeString(service)
            if let then { w.raw(",\"then\":"); w.writeString(then) }
            if let timeout { w.raw(",\"timeout\":"); w.write(JSON(timeout)) }
            w.raw("}")
        }

        mutating func writeRecord(id record: Int64, status: String, into w: inout JSONWriter) {
            w.raw("{\"args\":")
            w.write(args)
            w.raw(",\"id\":")
            w.writeInteger(record)
            if let id {
                w.raw(",\"key\":")
                w.writeString(id)
            }
            w.raw(",\"op\":")
            w.writeString(op)
            w.raw(",\"service\":")
            w.writeString(service)
            w.raw(",\"status\":")
            w.writeString(status)
            w.raw("}")
        }
    }

    private final class Box: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

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
    /// A cancellation key chosen by the reducer, scoped to its scene.
    public var id: String? {
        get { box.fields.id }
        set { unique.fields.id = newValue }
    }
    /// Seconds the effect may take once started; then its `catch` action
    /// gets `{"code": "timeout"}`.
    public var timeout: Double? {
        get { box.fields.timeout }
        set { unique.fields.timeout = newValue }
    }
    public var policy: Policy {
        get { box.fields.policy }
        set { unique.fields.policy = newValue }
    }
    public var restore: RestorePolicy {
        get { box.fields.restore }
        set { unique.fields.restore = newValue }
    }

    public init(service: String, op: String, args: JSON = .null, then: String? = nil, catch: String? = nil,
                id: String? = nil, timeout: Double? = nil, policy: Policy = .concurrent, restore: RestorePolicy = .cancel) {
        box = Box(Fields(service: service, op: op, args: args, then: then, catch: `catch`, id: id, timeout: timeout,
                         policy: policy, restore: restore))
    }

    public static func == (a: Effect, b: Effect) -> Bool { a.box === b.box || a.box.fields == b.box.fields }

    /// Reads an effect object; `at` locates it in the request for errors.
    public init(json: JSON, at pointer: @autoclosure () -> String = "") throws(YaiaError) {
        guard case .object(let o) = json else {
            throw YaiaError(.notAnObject, "an effect must be an object, not \(json.kindName)", at: pointer())
        }
        // One pass over the members, noting where each is: effects are read
        // on every emission, and their values are then read in place.
        let members = o.members
        var service = -1, op = -1, args = -1, then = -1, catchName = -1, id = -1, t = -1, p = -1, r = -1
        for i in members.indices {
            // By length first: a string comparison that fails costs a call.
            let key = members[i].key
            switch key.utf8.count {
            case 2 where key == "op": op = i
            case 2 where key == "id": id = i
            case 4 where key == "args": args = i
            case 4 where key == "then": then = i
            case 5 where key == "catch": catchName = i
            case 6 where key == "policy": p = i
            case 7 where key == "service": service = i
            case 7 where key == "timeout": t = i
            case 7 where key == "restore": r = i
            default: break
            }
        }
        func text(_ i: Int, _ key: String) throws(YaiaError) -> String {
            try MemberReading.string(i < 0 ? nil : members[i].value, key, at: JSONPointer.appending(pointer(), key), code: .badRequest, nonEmpty: true)
        }
        var timeout: Double?
        if t >= 0 {
            guard let seconds = members[t].value.doubleValue, seconds > 0 else {
                throw YaiaError(.badRequest, "the effect's \"timeout\" must be a positive number of seconds", at: JSONPointer.appending(pointer(), "timeout"))
            }
            timeout = seconds
        }
        var policy = Policy.concurrent
        if p >= 0 {
            guard case .string(let name) = members[p].value, let known = Policy(rawValue: name) else {
                throw YaiaError(.badRequest, "the effect's \"policy\" must be one of concurrent, latest, queue", at: JSONPointer.appending(pointer(), "policy"))
            }
            policy = known
        }
        var restore = RestorePolicy.cancel
        if r >= 0 {
            guard case .string(let name) = members[r].value, let known = RestorePolicy(rawValue: name) else {
                throw YaiaError(.badRequest, "the effect's \"restore\" must be one of reissue, cancel, await", at: JSONPointer.appending(pointer(), "restore"))
            }
            restore = known
        }
        self.init(service: try text(service, "service"), op: try text(op, "op"), args: args < 0 ? .null : members[args].value,
                  then: then < 0 ? nil : try text(then, "then"), catch: catchName < 0 ? nil : try text(catchName, "catch"),
                  id: id < 0 ? nil : try text(id, "id"), timeout: timeout, policy: policy, restore: restore)
    }

    /// Writes `json`'s text without building it (the same bytes).
    package func write(into w: inout JSONWriter) { box.fields.write(into: &w) }

    /// Writes a record's text for this effect (`EffectTable.Record.json`).
    package func writeRecord(id: Int64, status: String, into w: inout JSONWriter) {
        box.fields.writeRecord(id: id, status: status, into: &w)
    }

    public var json: JSON {
        // Members in key order: args, catch, id, op, policy, restore, service, then, timeout.
        var m: [JSONObject.Member] = []
        m.reserveCapacity(9)
        m.append(.init(key: "args", value: args))
        if let `catch` { m.append(.init(key: "catch", value: .string(`catch`))) }
        if let id { m.append(.init(key: "id", value: .string(id))) }
        m.append(.init(key: "op", value: .string(op)))
        if policy != .concurrent { m.append(.init(key: "policy", value: .string(policy.rawValue))) }
        if restore != .cancel { m.append(.init(key: "restore", value: .string(restore.rawValue))) }
        m.append(.init(key: "service", value: .string(service)))
        if let then { m.append(.init(key: "then", value: .string(then))) }
        if let timeout { m.append(.init(key: "timeout", value: JSON(timeout))) }
        return .object(JSONObject(members: m))
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
public enum Route: Sendable, Equatable {
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
public enum Command: Sendable, Equatable {
    case effect(Effect)
    case route(Route)
    /// Cancels the scene's effects with this `id`: their outcomes are never delivered.
    case cancel(String)

    /// Reads `{"effect": {...}}`, `{"route": {...}}` or `{"cancel": "id"}`.
    public init(json: JSON, at pointer: @autoclosure () -> String = "") throws(YaiaError) {
        guard case .object(let o) = json, o.count == 1, let member = o.members.first else {
            throw YaiaError(.badRequest, "a command is {\"effect\": ...}, {\"route\": ...} or {\"cancel\": \"id\"}", at: pointer())
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
        default:
            throw YaiaError(.badRequest, "unknown command \"\(member.key)\"", at: at)
        }
    }

    /// Writes `json`'s text; an effect's without building it.
    package func write(into w: inout JSONWriter) {
        switch self {
        case .effect(let e):
            w.raw("{\"effect\":")
            e.write(into: &w)
            w.raw("}")
        case .route, .cancel: w.write(json)
        }
    }

    public var json: JSON {
        switch self {
        case .effect(let e): return .object(JSONObject(members: [.init(key: "effect", value: e.json)]))
        case .route(let r): return .object(JSONObject(members: [.init(key: "route", value: r.json)]))
        case .cancel(let key): return .object(JSONObject(members: [.init(key: "cancel", value: .string(key))]))
        }
    }
}
