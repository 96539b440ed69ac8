import Testing
@testable import YaiaCore
import YaiaExamples
import YaiaKit

// Invariants of documents and Swift scenes, and the simulator's pure parts:
// its random source, the values it draws from schemas, its shrinker.

/// A valid document with `invariants` (JSON text) over the state {"a": 0, "list": []}.
func withInvariants(_ invariants: String, args: String = "{}") -> String {
    #"{"yaia": 1, "scene": "t/x", "args": \#(args), "state": {"a": 0, "list": []}, "actions": {"inc": {"set": {"a": {"+": [{"var": "state.a"}, 1]}}}}, "invariants": \#(invariants)}"#
}

@Suite("Invariants")
struct InvariantTests {
    @Test("a document's invariants are checked like its other expressions")
    func checked() throws {
        #expect(try documentProblems(withInvariants(#"{"small": {"<": [{"var": "state.a"}, 3]}, "any": true}"#)).isEmpty)
        try expectProblem(withInvariants("[]"), "wrong_type", at: "/invariants")
        try expectProblem(withInvariants(#"{"x": {"lessThan": [1, 2]}}"#), "unknown_operator", at: "/invariants/x/lessThan")
        try expectProblem(withInvariants(#"{"x": {"var": "payload.a"}}"#), "unknown_root", at: "/invariants/x/var")
        try expectProblem(withInvariants(#"{"x": {"var": "state.b"}}"#), "unknown_field", at: "/invariants/x")
        try expectProblem(withInvariants(#"{"": true}"#), "bad_value", at: "/invariants/")
        // state, args and env are readable.
        #expect(try documentProblems(withInvariants(#"{"x": {"<": [{"var": "state.a"}, {"var": "args.max"}, {"var": "env.top"}]}}"#,
                                                    args: #"{"max": {"default": 5}}"#)).isEmpty)
    }

    @Test("failing invariants: in the order of their names, reading state, args with defaults and env; one that cannot be evaluated fails")
    func failing() throws {
        let scene = try DocumentScene(try json(withInvariants(
            #"{"belowMax": {"<=": [{"var": "state.a"}, {"var": "args.max"}]}, "belowTop": {"<=": [{"var": "state.a"}, {"var": "env.top"}]}, "text": {"remove": [{"var": "state.a"}, 0]}}"#,
            args: #"{"max": {"default": 1}}"#)))
        #expect(scene.document.invariantNames == ["belowMax", "belowTop", "text"])
        var value = try scene.open(env: ["top": 1])
        #expect(scene.failingInvariants(state: value.json, args: [:], env: ["top": 1]).map(\.name) == ["text"])
        _ = try value.reduce(Action("inc"))
        _ = try value.reduce(Action("inc"))
        let failures = scene.failingInvariants(state: value.json, args: [:], env: ["top": 5])
        #expect(failures.map(\.name) == ["belowMax", "text"])
        #expect(failures[0].message == "the invariant \"belowMax\" of t/x does not hold")
        #expect(failures[1].message.hasPrefix("the invariant \"text\" of t/x cannot be evaluated: "))
        #expect(scene.failingInvariants(state: value.json, args: ["max": 2], env: ["top": 2]).map(\.name) == ["text"])
    }

    struct Bounded: SceneState {
        enum Act: SceneAction {
            case add(Int)
            init(_ action: Action) throws(YaiaError) {
                guard action.type == "add", let n = action.payload?.int64Value else { throw action.unknown }
                self = .add(Int(n))
            }
        }

        static let name = "t/bounded"
        static var invariants: [Invariant<Bounded>] {
            [Invariant("nonNegative") { $0.n >= 0 }, Invariant("small") { $0.n < 10 }]
        }

        var n = 0
        init(args: JSON) {}
        init(json: JSON) throws(YaiaError) { n = Int(json["n"]?.int64Value ?? 0) }
        mutating func reduce(_ action: Act) -> [Command] {
            if case .add(let k) = action { n += k }
            return []
        }

        var json: JSON { ["n": JSON(n)] }
        var viewModel: JSON { json }
    }

    @Test("a Swift scene declares invariants as predicates over its state; none by default")
    func swift() throws {
        let type = SceneType(Bounded.self)
        #expect(type.hasInvariants)
        #expect(!SceneType(LoginState.self).hasInvariants)
        var value = try type.open()
        #expect(value.failingInvariants.isEmpty)
        _ = try value.reduce(Action("add", payload: -1))
        #expect(value.failingInvariants.map(\.name) == ["nonNegative"])
        #expect(try type.failingInvariants(state: ["n": 12]).map(\.name) == ["small"])
        #expect(try type.failingInvariants(state: ["n": 12]).first?.message == "the invariant \"small\" of t/bounded does not hold")
    }
}

@Suite("Simulation: random source, values from schemas, shrinking")
struct SimulationTests {
    @Test("SplitMix64 gives the reference sequence and stays in its bounds")
    func random() {
        var rng = SplitMix64(seed: 0)
        // The published first outputs of SplitMix64 from seed 0.
        #expect(rng.next() == 0xE220_A839_7B1D_CDAF)
        #expect(rng.next() == 0x6E78_9E6A_A1B9_65F4)
        var a = SplitMix64(seed: 42), b = SplitMix64(seed: 42)
        for _ in 0..<100 { #expect(a.below(7) == b.below(7)) }
        for _ in 0..<1000 {
            #expect((0..<7).contains(a.below(7)))
            #expect((-3...3).contains(a.integer(-3, 3)))
            #expect((0..<1).contains(a.unit()))
        }
        #expect(a.integer(5, 5) == 5)
        #expect(a.below(0) == 0)
        // Every value of a small range comes up.
        #expect(Set((0..<200).map { _ in a.integer(-2, 2) }) == [-2, -1, 0, 1, 2])
    }

    /// Schemas as documents declare them, each with the declaration that checks a value.
    static let declarations = [
        #"{"schema": {"type": "object", "required": ["price"], "properties": {"price": {"type": "integer", "minimum": 1, "maximum": 50}, "note": {"type": "string", "maxLength": 3}}}}"#,
        #"{"schema": {"type": "string", "minLength": 2, "maxLength": 4}}"#,
        #"{"schema": {"enum": ["a", 2, null]}}"#,
        #"{"schema": {"type": ["string", "null"]}}"#,
        #"{"schema": {"type": "number", "minimum": -1.5, "maximum": 0.5}}"#,
        #"{"schema": {"type": "number", "minimum": 0.25, "maximum": 0.75}}"#,
        #"{"schema": {"type": "array", "items": {"type": "integer", "minimum": 0}}}"#,
        #"{"title": "string", "tags": ["string"], "due": "integer?", "done": "boolean"}"#,
        #""any""#,
    ]

    @Test("drawn values match the schema they are drawn from, and every value of an enum comes up")
    func generated() throws {
        var rng = SplitMix64(seed: 1)
        let generator = ValueGenerator()
        for text in Self.declarations {
            var problems: [DocumentProblem] = []
            let declared = DeclaredType.read(try json(text), at: "", problems: &problems)
            #expect(problems.isEmpty)
            for _ in 0..<300 {
                let value = generator.value(declared.schema, &rng)
                #expect(declared.mismatch(value) == nil, "\(value) from \(text)")
            }
        }
        let drawn = Set((0..<100).map { _ in generator.value(["enum": ["a", 2, .null]], &rng).description })
        #expect(drawn == ["\"a\"", "2", "null"])
        #expect(generator.value(["const": ["x": 1]], &rng) == ["x": 1])
        // Bounds come up: they are where bugs are.
        let prices = (0..<200).map { _ in generator.value(["type": "integer", "minimum": 1, "maximum": 50], &rng) }
        #expect(prices.contains(1) && prices.contains(50))
    }

    @Test("the same seed draws the same values")
    func deterministic() {
        func draw(_ seed: UInt64) -> [JSON] {
            var rng = SplitMix64(seed: seed)
            return (0..<50).map { _ in ValueGenerator().value(["type": ["object", "array", "string", "number"], "items": [:]], &rng) }
        }
        #expect(draw(9) == draw(9))
        #expect(draw(9) != draw(10))
    }

    @Test("simpler values are smaller, and run out")
    func simpler() {
        #expect(ValueGenerator.simpler(7) == [0, 3, 6])
        #expect(ValueGenerator.simpler(-4) == [0, -2, -3])
        #expect(ValueGenerator.simpler(0) == [])
        #expect(ValueGenerator.simpler("abcd") == ["", "ab", "abc", "aaaa"])
        #expect(ValueGenerator.simpler(true) == [false])
        #expect(ValueGenerator.simpler(["a": 1]).first == [:])
        #expect(ValueGenerator.simpler([5]).prefix(2) == [[], [0]] || ValueGenerator.simpler([5]).first == [])
        // Simplifying again and again ends.
        var value: JSON = ["list": [12, "xyz", ["k": 2.5]], "on": true]
        var rounds = 0
        while let next = ValueGenerator.simpler(value).last, rounds < 1000 {
            value = next
            rounds += 1
        }
        #expect(rounds < 1000)
    }

    @Test("the shrinker keeps only the steps a failure needs, simplifies them, and stops within its budget")
    func shrink() {
        // Fails when a 3 comes before a value of at least 7.
        func fails(_ steps: [Int]) -> [Int]? {
            guard let three = steps.firstIndex(of: 3), let big = steps[(three + 1)...].firstIndex(where: { $0 >= 7 }) else { return nil }
            return Array(steps[...big])
        }
        func simpler(_ n: Int) -> [Int] { n > 0 ? [0, n / 2, n - 1] : [] }
        var shrinker = Shrinker<Int>()
        let steps = [1, 9, 4, 3, 5, 2, 8, 6, 3, 12, 0, 7]
        #expect(shrinker.shrink(steps, simpler: simpler, fails: fails) == [3, 7])
        #expect(shrinker.tried > 0)
        var small = Shrinker<Int>(budget: 3)
        _ = small.shrink(steps, simpler: simpler, fails: fails)
        #expect(small.tried == 3)
        // A sequence that fails at once shrinks to nothing.
        var empty = Shrinker<Int>()
        #expect(empty.shrink([4, 5], simpler: simpler) { _ in [] } == [])
    }
}
