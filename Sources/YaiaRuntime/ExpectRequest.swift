// The `expect` request: one step of a test checked by the exhaustive rules
// (ExhaustiveRules), for a test kept outside Swift. The request carries the
// test's record and gets it back changed: the runtime keeps nothing.
import YaiaCore
import YaiaKit

extension Runtime {
    /// `{"op": "expect", "test": RECORD?, "exhaustive": BOOL?, "step": NAME, ...}`
    /// -> `{"ok": true, "test": RECORD, "failure": TEXT?, ...}` (docs/abi.md).
    func expectRequest(_ o: JSONObject) throws(YaiaError) -> JSON {
        var rules = ExhaustiveRules()
        if let test = o["test"] { rules = try ExhaustiveRules(json: test, at: "/test") }
        if let e = o["exhaustive"] { rules.exhaustive = try MemberReading.bool(e, "exhaustive", at: "/exhaustive", code: .badRequest) }
        var answer: JSONObject = ["ok": true]
        var failure: ExhaustiveRules.Failure?
        func index(_ key: String) throws(YaiaError) -> Int {
            Int(try o.integer(key, code: .badRequest, in: 0...Int64(Int32.max)))
        }
        func array(_ key: String) throws(YaiaError) -> [JSON] {
            guard let v = o[key] else { return [] }
            guard case .array(let a) = v else { throw YaiaError(.badRequest, "\"\(key)\" must be an array, not \(v.kindName)", at: "/" + key) }
            return a.elements
        }
        switch try o.string("step", code: .badRequest) {
        case "input":
            failure = rules.beforeInput()
        case "emitted":
            for (i, e) in try array("effects").enumerated() {
                rules.emitted(try ExhaustiveRules.record(e, at: JSONPointer.appending("/effects", i)))
            }
            for r in try array("routes") { rules.emitted(route: r) }
        case "effects":
            // What the runtime says of the effects in flight; those it does not list have ended.
            let queued = Set(try array("queued").compactMap(\.int64Value))
            let pending = Set(try array("pending").compactMap(\.int64Value)).union(queued)
            for i in rules.effects.indices { rules.update(i, queued: pending.contains(Int64(i)) ? queued.contains(Int64(i)) : nil) }
        case "base":
            let base = rules.stateBase(stated: try o.bool("stated", code: .badRequest))
            answer["base"] = base.map { $0 == .previous ? "previous" : "actual" } ?? .null
        case "state":
            let stated = try o.bool("stated", code: .badRequest)
            let actual = o["actual"] ?? .null
            if let base = rules.stateBase(stated: stated) {
                let start = base == .previous ? o["previous"] ?? .null : actual
                let (expected, nowhere) = ExhaustiveRules.applying(try Self.changes(try array("changes"), at: "/changes"), to: start)
                failure = nowhere.first.map { .init("the expected change at \($0) has nowhere to go") } ?? rules.state(expected: o["expected"] ?? expected, actual: actual, stated: stated,
                                      unstated: o["unstated"]?.stringValue)
            }
        case "receive":
            var wanted = ExhaustiveRules.EffectExpectation.members(try Self.changes(try array("members"), at: "/members"))
            if let whole = o["whole"] { wanted = .whole(whole) }
            let (found, f) = rules.receive(wanted)
            (answer["effect"], failure) = (found.map { .int(Int64($0)) } ?? .null, f)
        case "route":
            failure = rules.expectRoute(o["route"] ?? .null)
        case "resolve":
            failure = try rules.resolving(index("effect")) ?? rules.beforeInput()
        case "resolved":
            rules.resolved(try index("effect"))
        case "skip_effects":
            answer["effects"] = .array(rules.skipEffects().map { .int(Int64($0)) })
        case "skip_routes":
            answer["routes"] = .array(rules.skipRoutes())
        case "finish":
            failure = rules.finish()
        case let other:
            throw YaiaError(.badRequest, "\"step\" is input, emitted, effects, base, state, receive, route, resolve, resolved, skip_effects, skip_routes or finish, not \"\(other)\"",
                            at: "/step")
        }
        answer["test"] = rules.json
        if let failure { answer["failure"] = .string(failure.text) }
        return .object(answer)
    }

    /// `[[KEY, VALUE], [KEY]]`: each key (a member name or a JSON Pointer) and
    /// its value; without one, the member must be absent.
    private static func changes(_ list: [JSON], at pointer: String) throws(YaiaError) -> [(key: String, value: JSON?)] {
        var out: [(key: String, value: JSON?)] = []
        for (i, item) in list.enumerated() {
            guard case .array(let pair) = item, pair.count == 1 || pair.count == 2, case .string(let key) = pair[0] else {
                throw YaiaError(.badRequest, "a change is [KEY, VALUE], or [KEY] for a member that must be absent", at: JSONPointer.appending(pointer, i))
            }
            out.append((key, pair.count == 2 ? pair[1] : nil))
        }
        return out
    }
}
