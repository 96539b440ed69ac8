import YaiaKit

/// A scenario file (`*.scenario.json`, docs/scenarios.md), read and checked:
/// a scene or a flow to start, then steps, each an input and what it must
/// produce. Pure values: the runtime's `scenario` request runs one.
public struct Scenario: Sendable {
    /// The format versions this runtime reads.
    public static let versions: Set<Int64> = [1]
    /// Bounds a hostile file cannot pass.
    public static let maxSteps = 10_000
    public static let maxScenes = 64
    public static let maxAdvance = 1e9

    public enum Subject: Sendable, Equatable {
        case scene(String)
        case flow(String)

        public var name: String {
            switch self {
            case .scene(let n), .flow(let n): n
            }
        }
    }

    /// Which effect a `resolve` or `perform` step means.
    public enum EffectReference: Sendable, Equatable, CustomStringConvertible {
        /// The oldest effect in flight of that service and op.
        case named(service: String, op: String)
        /// The N-th effect the scenario saw emitted, from 1.
        case number(Int)

        public var description: String {
            switch self {
            case .named(let s, let o): "\(s).\(o)"
            case .number(let n): "#\(n)"
            }
        }

        public var json: JSON {
            switch self {
            case .named(let s, let o): .string("\(s).\(o)")
            case .number(let n): .int(Int64(n))
            }
        }
    }

    public enum Input: Sendable, Equatable {
        case send(Action)
        case resolve(EffectReference, Outcome)
        case perform(EffectReference)
        case advance(Double)
        case none
    }

    /// What a step must produce; nil members are not stated.
    public struct Expectation: Sendable, Equatable {
        /// Member names or JSON Pointers to their new values.
        public var state: JSONObject?
        public var effects: [JSONObject]?
        public var routes: [JSON]?
        public var view: JSON?
        public var viewExact = false
        /// A flow's scene types, root first.
        public var stack: [String]?

        public init() {}
    }

    /// A refusal a step expects: its code, and optionally where and what.
    public struct Refusal: Sendable, Equatable {
        public var code: String
        public var at: String?
        public var message: String?

        public init(code: String, at: String? = nil, message: String? = nil) {
            self.code = code
            self.at = at
            self.message = message
        }
    }

    public struct Step: Sendable, Equatable {
        public var input: Input
        public var expect: Expectation?
        public var expectError: Refusal?
        public var expectNoEffects = false
        /// Overrides the scenario's `exhaustive` for this step.
        public var exhaustive: Bool?
        public var label: String
        /// The child scene the step is about (ScenarioChildren.swift).
        public var path: [JSON]?
    }

    public var name: String?
    public var scenes: [String]
    public var subject: Subject
    public var args: JSON
    public var state: JSON?
    public var env: JSONObject
    /// The manual clock's start: `env.now`, else 0.
    public var now: Double
    public var exhaustive: Bool
    public var steps: [Step]

    static let topMembers = ["yaia", "name", "scenes", "scene", "flow", "args", "state", "env", "exhaustive", "steps", "description"]
    static let stepMembers = ["send", "payload", "error", "meta", "resolve", "result", "perform", "advance", "expect", "expectError",
                              "expectNoEffects", "exhaustive", "label", "path"]
    static let expectMembers = ["state", "effects", "routes", "view", "viewExact", "stack"]
    static let effectMembers = ["service", "op", "args", "then", "catch", "id", "timeout", "policy", "restore"]

    /// Reads a scenario; `bad_scenario` with every problem in `problems`.
    public init(_ json: JSON) throws(YaiaError) {
        var reader = ScenarioReader()
        guard let scenario = reader.read(json), reader.problems.isEmpty else {
            let first = reader.problems.first
            var error = YaiaError(.badScenario, "the scenario has \(reader.problems.count) problem\(reader.problems.count == 1 ? "" : "s")"
                                  + (first.map { ": \($0.message) (at \($0.at))" } ?? ""), at: first?.at)
            error.problems = .array(reader.problems.map(\.json))
            throw error
        }
        self = scenario
    }

    /// The label of a step: what it does, short.
    static func label(_ input: Input) -> String {
        switch input {
        case .send(let action):
            var text = "send " + action.type
            if let payload = action.payload { text += " " + ScenarioDiff.render(payload, limit: 80) }
            return text + (action.error ? " (error)" : "")
        case .resolve(let ref, let outcome):
            switch outcome {
            case .success(let v): return "resolve \(ref) with result " + ScenarioDiff.render(v, limit: 80)
            case .failure(let v): return "resolve \(ref) with error " + ScenarioDiff.render(v, limit: 80)
            }
        case .perform(let ref): return "perform \(ref)"
        case .advance(let s): return "advance " + JSON(s).serialized()
        case .none: return "expect"
        }
    }
}

/// Reads a scenario, collecting every problem rather than stopping at the first.
struct ScenarioReader: ProblemReader {
    var problems: [DocumentProblem] = []
    var renamed: [(read: String, written: String)] = []

    mutating func problem(_ code: DocumentProblem.Code, _ message: String, at pointer: String) {
        // A hostile file with a problem in every step must not make a list without end.
        guard problems.count < 100 else { return }
        problems.append(DocumentProblem(code, message, at: pointer))
    }

    mutating func string(_ json: JSON?, _ what: String, at pointer: String) -> String? {
        guard let json else { return nil }
        guard case .string(let s) = json, !s.isEmpty else {
            problem(json.stringValue == nil ? .wrongType : .badValue, "\(what) must be a non-empty string" + kind(json), at: pointer)
            return nil
        }
        return s
    }

    mutating func bool(_ json: JSON?, _ what: String, at pointer: String) -> Bool? {
        guard let json else { return nil }
        guard case .bool(let b) = json else {
            problem(.wrongType, "\(what) must be true or false, not \(json.kindName)", at: pointer)
            return nil
        }
        return b
    }

    private func kind(_ json: JSON) -> String { json.stringValue == nil ? ", not \(json.kindName)" : "" }

    mutating func read(_ json: JSON) -> Scenario? {
        guard let o = object(json, "a scenario", at: "") else { return nil }
        members(of: o, "a scenario", known: Scenario.topMembers, at: "")
        switch o["yaia"] {
        case nil: problem(.missingMember, "a scenario needs \"yaia\": 1, the format's version", at: "")
        case let v? where v.int64Value.map(Scenario.versions.contains) != true:
            problem(.badVersion, "\"yaia\" is the format's version: 1", at: "/yaia")
        default: break
        }
        let name = string(o["name"], "\"name\"", at: "/name")
        _ = string(o["description"], "\"description\"", at: "/description")
        var scenes: [String] = []
        if let list = o["scenes"] {
            if case .array(let items) = list {
                if items.count > Scenario.maxScenes {
                    problem(.badValue, "a scenario loads at most \(Scenario.maxScenes) scene sources", at: "/scenes")
                }
                for (i, item) in items.prefix(Scenario.maxScenes).enumerated() {
                    if let s = string(item, "a \"scenes\" entry (a path)", at: JSONPointer.appending("/scenes", i)) { scenes.append(s) }
                }
            } else {
                problem(.wrongType, "\"scenes\" must be an array of paths, not \(list.kindName)", at: "/scenes")
            }
        }
        var subject: Scenario.Subject?
        var args: JSON = [:]
        switch (o["scene"], o["flow"]) {
        case (nil, nil):
            problem(.missingMember, "a scenario needs \"scene\" (the scene under test) or \"flow\" ({\"scene\": ...})", at: "")
        case (let s?, nil):
            if let n = string(s, "\"scene\" (a scene type)", at: "/scene") { subject = .scene(n) }
        case (nil, let f?):
            if let fo = object(f, "\"flow\"", at: "/flow") {
                members(of: fo, "\"flow\"", known: ["scene", "args"], at: "/flow")
                if fo["scene"] == nil { problem(.missingMember, "\"flow\" needs \"scene\": its root scene", at: "/flow") }
                if let n = string(fo["scene"], "the flow's \"scene\"", at: "/flow/scene") { subject = .flow(n) }
                if let a = fo["args"] {
                    if object(a, "the flow's \"args\"", at: "/flow/args") != nil { args = a }
                }
            }
            if o["args"] != nil { problem(.badValue, "a flow's args go in \"flow\": {\"scene\", \"args\"}", at: "/args") }
            if o["state"] != nil { problem(.badValue, "\"state\" opens a scene in that state; a flow starts from its root's args", at: "/state") }
        case (_?, _?):
            problem(.badValue, "a scenario has \"scene\" or \"flow\", not both", at: "/flow")
        }
        if subject.map({ if case .scene = $0 { return true } else { return false } }) == true, let a = o["args"] {
            if object(a, "\"args\"", at: "/args") != nil { args = a }
            if o["state"] != nil { problem(.badValue, "a scenario opens its scene from \"args\" or \"state\", not both", at: "/state") }
        }
        var env: JSONObject = [:]
        var now = 0.0
        if let e = object(o["env"], "\"env\"", at: "/env") {
            env = e
            if let n = e["now"] {
                if let d = n.doubleValue, d.isFinite, d >= 0, d <= Scenario.maxAdvance { now = d } else {
                    problem(.badValue, "env.now starts the manual clock: a number from 0 to 1e9", at: "/env/now")
                }
                env["now"] = nil
            }
        }
        let exhaustive = bool(o["exhaustive"], "\"exhaustive\"", at: "/exhaustive") ?? true
        var steps: [Scenario.Step] = []
        switch o["steps"] {
        case nil: problem(.missingMember, "a scenario needs \"steps\": an array (it may be empty)", at: "")
        case .array(let items)?:
            if items.count > Scenario.maxSteps {
                problem(.badValue, "a scenario has at most \(Scenario.maxSteps) steps, not \(items.count)", at: "/steps")
            }
            for (i, item) in items.prefix(Scenario.maxSteps).enumerated() {
                if let step = readStep(item, at: JSONPointer.appending("/steps", i)) { steps.append(step) }
            }
        case let other?:
            problem(.wrongType, "\"steps\" must be an array, not \(other.kindName)", at: "/steps")
        }
        guard let subject else { return nil }
        var scenario = Scenario(name: name, subject: subject, args: args, state: o["state"], steps: steps)
        scenario.scenes = scenes
        scenario.env = env
        scenario.now = now
        scenario.exhaustive = exhaustive
        return scenario
    }

    mutating func readReference(_ json: JSON, _ what: String, at pointer: String) -> Scenario.EffectReference? {
        switch json {
        case .string(let s):
            let parts = s.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                problem(.badValue, "\(what) names an effect as \"service.op\", or by its number (1 is the first emitted)", at: pointer)
                return nil
            }
            return .named(service: String(parts[0]), op: String(parts[1]))
        default:
            guard let n = json.int64Value, n >= 1, n <= Int64(Scenario.maxSteps) * 1000 else {
                problem(.wrongType, "\(what) names an effect as \"service.op\", or by its number (1 is the first emitted)", at: pointer)
                return nil
            }
            return .number(Int(n))
        }
    }

    mutating func readStep(_ json: JSON, at pointer: String) -> Scenario.Step? {
        guard let o = object(json, "a step", at: pointer) else { return nil }
        members(of: o, "a step", known: Scenario.stepMembers, at: pointer)
        let inputs = ["send", "resolve", "perform", "advance"].filter { o[$0] != nil }
        if inputs.count > 1 {
            problem(.badValue, "a step has one input; this one has " + inputs.map { "\"\($0)\"" }.joined(separator: " and "),
                    at: JSONPointer.appending(pointer, inputs[1]))
        }
        var input = Scenario.Input.none
        var ok = true
        func stray(_ keys: [String], _ why: String, _ reader: inout ScenarioReader) {
            for key in keys where o[key] != nil { reader.problem(.badValue, why, at: JSONPointer.appending(pointer, key)) }
        }
        switch inputs.first {
        case "send":
            if let type = string(o["send"], "\"send\" (an action type)", at: pointer + "/send") {
                let error = bool(o["error"], "\"error\"", at: pointer + "/error") ?? false
                input = .send(Action(type, payload: o["payload"], error: error, meta: o["meta"]))
            } else { ok = false }
            stray(["result"], "\"result\" goes with \"resolve\"", &self)
        case "resolve":
            let ref = readReference(o["resolve"] ?? .null, "\"resolve\"", at: pointer + "/resolve")
            switch (o["result"], o["error"]) {
            case (let r?, nil): if let ref { input = .resolve(ref, .success(r)) } else { ok = false }
            case (nil, let e?): if let ref { input = .resolve(ref, .failure(e)) } else { ok = false }
            default:
                problem(.badValue, "a resolve step takes exactly one of \"result\" and \"error\"", at: pointer)
                ok = false
            }
            stray(["payload", "meta"], "\"payload\" and \"meta\" go with \"send\"", &self)
        case "perform":
            if let ref = readReference(o["perform"] ?? .null, "\"perform\"", at: pointer + "/perform") { input = .perform(ref) } else { ok = false }
            stray(["payload", "meta", "result", "error"], "a perform step's outcome comes from the services", &self)
        case "advance":
            if let s = o["advance"]?.doubleValue, s.isFinite, s >= 0, s <= Scenario.maxAdvance { input = .advance(s) } else {
                problem(.badValue, "\"advance\" moves the clock by a number of seconds, from 0 to 1e9", at: pointer + "/advance")
                ok = false
            }
            stray(["payload", "meta", "result", "error"], "an advance step takes no outcome", &self)
        default:
            stray(["payload", "meta", "result", "error"], "\"payload\", \"meta\", \"result\" and \"error\" go with an input (send or resolve)", &self)
        }
        var step = Scenario.Step(input: input, label: Scenario.label(input))
        if let p = o["path"] {
            step.path = readPath(p, input: input, at: pointer + "/path")
            step.label = Scenario.label(input, path: step.path)
        }
        if let label = string(o["label"], "\"label\"", at: pointer + "/label") { step.label = label }
        step.exhaustive = bool(o["exhaustive"], "\"exhaustive\"", at: pointer + "/exhaustive")
        step.expectNoEffects = bool(o["expectNoEffects"], "\"expectNoEffects\"", at: pointer + "/expectNoEffects") ?? false
        if let e = object(o["expect"], "\"expect\"", at: pointer + "/expect") { step.expect = readExpectation(e, at: pointer + "/expect") }
        if let r = object(o["expectError"], "\"expectError\"", at: pointer + "/expectError") {
            let at = pointer + "/expectError"
            members(of: r, "\"expectError\"", known: ["code", "at", "message"], at: at)
            if r["code"] == nil { problem(.missingMember, "\"expectError\" needs the error's \"code\"", at: at) }
            if let code = string(r["code"], "\"code\"", at: at + "/code") {
                var refusal = Scenario.Refusal(code: code)
                if let p = r["at"] {
                    if case .string(let s) = p, s.isEmpty || s.hasPrefix("/") { refusal.at = s } else {
                        problem(.badValue, "\"at\" is a JSON Pointer into the action or outcome", at: at + "/at")
                    }
                }
                refusal.message = string(r["message"], "\"message\"", at: at + "/message")
                step.expectError = refusal
            }
            switch input {
            case .send, .resolve: break
            default: problem(.badValue, "\"expectError\" goes with a send or resolve step", at: at)
            }
            if o["expect"] != nil { problem(.badValue, "a refused input changes nothing: a step has \"expect\" or \"expectError\", not both", at: pointer + "/expect") }
        }
        if case .none = input, step.expect == nil, !step.expectNoEffects, o["expect"] == nil, ok {
            problem(.missingMember, "a step needs an input (send, resolve, perform, advance) or an expectation (expect, expectNoEffects)", at: pointer)
        }
        return ok ? step : nil
    }

    mutating func readExpectation(_ o: JSONObject, at pointer: String) -> Scenario.Expectation {
        members(of: o, "\"expect\"", known: Scenario.expectMembers, at: pointer)
        var e = Scenario.Expectation()
        if let s = object(o["state"], "\"state\" (changes: member names or JSON Pointers to values)", at: pointer + "/state") {
            for key in s.keys where key.hasPrefix("/") && !ScenarioDiff.isPointer(key) {
                problem(.badValue, "\"\(key)\" is no JSON Pointer (a \"~\" is written \"~0\" or \"~1\")", at: JSONPointer.appending(pointer + "/state", key))
            }
            e.state = s
        }
        if let list = o["effects"] {
            if case .array(let items) = list {
                var effects: [JSONObject] = []
                for (i, item) in items.enumerated() {
                    let at = JSONPointer.appending(pointer + "/effects", i)
                    guard let eo = object(item, "an expected effect", at: at) else { continue }
                    members(of: eo, "an effect", known: Scenario.effectMembers, at: at)
                    if eo["service"] == nil || eo["op"] == nil { problem(.missingMember, "an expected effect names its \"service\" and \"op\"", at: at) }
                    effects.append(eo)
                }
                e.effects = effects
            } else {
                problem(.wrongType, "\"effects\" must be an array of effects, not \(list.kindName)", at: pointer + "/effects")
            }
        }
        if let list = o["routes"] {
            if case .array(let items) = list {
                for (i, item) in items.enumerated() { _ = object(item, "a route", at: JSONPointer.appending(pointer + "/routes", i)) }
                e.routes = items.elements
            } else {
                problem(.wrongType, "\"routes\" must be an array of routes, not \(list.kindName)", at: pointer + "/routes")
            }
        }
        e.view = o["view"]
        e.viewExact = bool(o["viewExact"], "\"viewExact\"", at: pointer + "/viewExact") ?? false
        if e.viewExact && e.view == nil { problem(.badValue, "\"viewExact\" goes with \"view\"", at: pointer + "/viewExact") }
        if !e.viewExact, let v = e.view, v.objectValue == nil {
            problem(.wrongType, "\"view\" is an object of members to match (or set \"viewExact\": true)", at: pointer + "/view")
        }
        if let list = o["stack"] {
            if case .array(let items) = list {
                var names: [String] = []
                for (i, item) in items.enumerated() {
                    if let n = string(item, "a stack entry (a scene type)", at: JSONPointer.appending(pointer + "/stack", i)) { names.append(n) }
                }
                e.stack = names
            } else {
                problem(.wrongType, "\"stack\" must be an array of scene types, root first", at: pointer + "/stack")
            }
        }
        return e
    }
}

// MARK: writing

extension Scenario.Expectation {
    /// As a scenario file writes it.
    public var json: JSON {
        var o: JSONObject = [:]
        if let state { o["state"] = .object(state) }
        if let effects { o["effects"] = .array(effects.map(JSON.object)) }
        if let routes { o["routes"] = .array(routes) }
        if let view { o["view"] = view }
        if viewExact { o["viewExact"] = true }
        if let stack { o["stack"] = .array(stack.map(JSON.string)) }
        return .object(o)
    }
}

extension Scenario.Step {
    public init(input: Scenario.Input, expect: Scenario.Expectation? = nil) {
        self.input = input
        self.expect = expect
        self.label = Scenario.label(input)
    }

    /// As a scenario file writes it.
    public var json: JSON {
        var o: JSONObject = [:]
        switch input {
        case .send(let action):
            o["send"] = .string(action.type)
            if let payload = action.payload { o["payload"] = payload }
            if action.error { o["error"] = true }
            if let meta = action.meta { o["meta"] = meta }
        case .resolve(let ref, .success(let v)):
            o["resolve"] = ref.json
            o["result"] = v
        case .resolve(let ref, .failure(let v)):
            o["resolve"] = ref.json
            o["error"] = v
        case .perform(let ref): o["perform"] = ref.json
        case .advance(let s): o["advance"] = JSON(s)
        case .none: break
        }
        if let expect, !(expect.json.objectValue?.isEmpty ?? true) { o["expect"] = expect.json }
        if let r = expectError {
            var e: JSONObject = ["code": .string(r.code)]
            if let at = r.at { e["at"] = .string(at) }
            if let m = r.message { e["message"] = .string(m) }
            o["expectError"] = .object(e)
        }
        if expectNoEffects { o["expectNoEffects"] = true }
        if let exhaustive { o["exhaustive"] = .bool(exhaustive) }
        if let path { o["path"] = .array(path) }
        if label != Scenario.label(input, path: path) { o["label"] = .string(label) }
        return .object(o)
    }
}

extension Scenario {
    /// A scenario with no scene files of its own, an empty `env`, the clock
    /// at 0, and exhaustive.
    public init(name: String?, subject: Subject, args: JSON = [:], state: JSON? = nil, steps: [Step]) {
        self.name = name
        self.scenes = []
        self.subject = subject
        self.args = args
        self.state = state
        self.env = [:]
        self.now = 0
        self.exhaustive = true
        self.steps = steps
    }

    /// As a scenario file writes it: reading it back gives this scenario.
    public var json: JSON {
        var o: JSONObject = ["yaia": 1]
        if let name { o["name"] = .string(name) }
        if !scenes.isEmpty { o["scenes"] = .array(scenes.map(JSON.string)) }
        switch subject {
        case .scene(let n):
            o["scene"] = .string(n)
            if let state { o["state"] = state } else if args != [:] { o["args"] = args }
        case .flow(let n):
            o["flow"] = args == [:] ? ["scene": .string(n)] : ["scene": .string(n), "args": args]
        }
        var e = env
        if now != 0 { e["now"] = JSON(now) }
        if !e.isEmpty { o["env"] = .object(e) }
        if !exhaustive { o["exhaustive"] = false }
        o["steps"] = .array(steps.map(\.json))
        return .object(o)
    }
}
