import Testing
import YaiaCore
import YaiaKit

/// The value of `rule` on `data` (both JSON text). A budget given is the
/// whole budget, whatever the data (no share of the data: perUnit 0).
private func logic(_ rule: String, _ data: String = "null", budget: Int? = nil,
                   sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
    var steps = budget.map { LogicBudget(base: $0, perUnit: 0) } ?? LogicBudget()
    return try LogicRule(try json(rule, sourceLocation: sourceLocation)).evaluate(try json(data, sourceLocation: sourceLocation), budget: &steps)
}

/// The error evaluating `rule` on `data` throws, or nil.
private func logicError(_ rule: String, _ data: String = "null", budget: Int? = nil) throws -> YaiaError? {
    let r = try LogicRule(try json(rule))
    let d = try json(data)
    var steps = budget.map { LogicBudget(base: $0, perUnit: 0) } ?? LogicBudget()
    return yaiaError { () throws(YaiaError) in try r.evaluate(d, budget: &steps) }
}

private func problems(_ rule: String, roots: Set<String>? = nil) throws -> [LogicProblem] {
    LogicRule.problems(in: try json(rule), roots: roots)
}

/// [0, 1, ..., n-1] as JSON text.
private func numbers(_ n: Int) -> String { "[" + (0..<n).map(String.init).joined(separator: ",") + "]" }

@Suite("JSON Logic: coercions")
struct LogicCoercionTests {
    @Test("== converts as JavaScript does", arguments: [
        (#"{"==":[0,""]}"#, true), (#"{"==":[null,0]}"#, false), (#"{"==":[null,null]}"#, true),
        (#"{"==":[[],false]}"#, true), (#"{"==":[[1],1]}"#, true), (#"{"==":[[1,2],"1,2"]}"#, true),
        (#"{"==":[true,"1"]}"#, true), (#"{"==":["0x10",16]}"#, true), (#"{"==":[" 12\n",12]}"#, true),
        (#"{"==":["1e3",1000]}"#, true), (#"{"==":["abc","abc"]}"#, true), (#"{"==":["a",0]}"#, false),
        (#"{"!=":[null,false]}"#, true), (#"{"==":[1,1.0]}"#, true), (#"{"==":["",[]]}"#, true),
    ])
    func looseEquality(rule: String, expected: Bool) throws {
        #expect(try logic(rule) == .bool(expected), "\(rule)")
    }

    @Test("an object is \"[object Object]\" to ==, and equal to an object with the same members")
    func objects() throws {
        let data = #"{"o":{"a":1,"b":2},"p":{"b":2,"a":1}}"#
        #expect(try logic(#"{"==":[{"var":"o"},"[object Object]"]}"#, data) == true)
        #expect(try logic(#"{"==":[{"var":"o"},{"var":"p"}]}"#, data) == true)
        #expect(try logic(#"{"===":[{"var":"o"},{"var":"p"}]}"#, data) == true)
        #expect(try logic(#"{"===":[[1,[2]],[1,[2]]]}"#) == true)
        #expect(try logic(#"{"==":[{"var":"o"},[]]}"#, data) == false)
    }

    @Test("=== compares numbers by value and nothing else across types", arguments: [
        (#"{"===":[1,1.0]}"#, true), (#"{"===":[1,"1"]}"#, false), (#"{"===":[null,false]}"#, false),
        (#"{"!==":[0,-0.0]}"#, false), (#"{"===":[9007199254740993,9007199254740992]}"#, false),
    ])
    func strictEquality(rule: String, expected: Bool) throws {
        #expect(try logic(rule) == .bool(expected), "\(rule)")
    }

    @Test("<, <=, >, >= compare two strings as strings, anything else as numbers", arguments: [
        (#"{"<":["a","b"]}"#, true), (#"{"<":["10","9"]}"#, true), (#"{"<":["10",9]}"#, false),
        (#"{"<":[null,1]}"#, true), (#"{"<":["abc",1]}"#, false), (#"{">=":["abc",1]}"#, false),
        (#"{">=":["abc","abc"]}"#, true), (#"{"<":[[2],10]}"#, true), (#"{">":[true,0]}"#, true),
        (#"{"<":[1,2.5,3]}"#, true), (#"{"<=":[1,1,0]}"#, false), (#"{"<":[9007199254740992,9007199254740993]}"#, true),
        (#"{"<":["\uffff","😀"]}"#, false), (#"{"<":["😀","\uffff"]}"#, true),
    ])
    func ordering(rule: String, expected: Bool) throws {
        #expect(try logic(rule) == .bool(expected), "\(rule)")
    }

    @Test("truthiness: 0, \"\", null, false and [] are false; \"0\", {} and [0] are true")
    func truthiness() throws {
        let data = #"{"o":{"a":1,"b":2}}"#
        for (value, expected) in [("0", false), ("0.0", false), (#""""#, false), ("null", false), ("false", false),
                                  ("[]", false), (#""0""#, true), ("[0]", true), (#"{"var":"o"}"#, true), ("-1", true)] {
            #expect(try logic(#"{"!!":["# + value + "]}", data) == .bool(expected), "\(value)")
        }
    }

    @Test("text as JavaScript writes it: numbers, arrays, null inside cat")
    func text() throws {
        #expect(try logic(#"{"cat":[1.5,null,true,[1,[2,null]],0.0000001,1e21,-2.5e-7,123456789012345680000,100.0]}"#)
            == "1.5true1,2,1e-71e+21-2.5e-7123456789012345680000100")
        #expect(try logic(#"{"cat":[0.1,-0.5,1e-6]}"#) == "0.1-0.50.000001")
    }

    @Test("in: a substring of a string, an element (===) of an array, else false")
    func inOperator() throws {
        #expect(try logic(#"{"in":[1,"a1"]}"#) == true)
        // As "".includes(""): the empty string is in every string, the empty one too.
        #expect(try logic(#"{"in":["",""]}"#) == true)
        #expect(try logic(#"{"in":["a",""]}"#) == false)
        #expect(try logic(#"{"in":["","a"]}"#) == true)
        #expect(try logic(#"{"in":[1,[1.0]]}"#) == true)
        #expect(try logic(#"{"in":["1",[1]]}"#) == false)
        #expect(try logic(#"{"in":["a",5]}"#) == false)
        #expect(try logic(#"{"in":["ö","schön"]}"#) == true)
    }

    @Test("substr counts Unicode scalars")
    func substr() throws {
        #expect(try logic(#"{"substr":["héllo wörld",-5]}"#) == "wörld")
        #expect(try logic(#"{"substr":["héllo",1,-1]}"#) == "éll")
        #expect(try logic(#"{"substr":["abc",5]}"#) == "")
        #expect(try logic(#"{"substr":["abc","1"]}"#) == "bc")
        #expect(try logic(#"{"substr":[12345,1,2]}"#) == "23")
    }

    @Test("var: dotted paths, array indices, length, defaults, computed paths")
    func variables() throws {
        let data = #"{"a":[5,6],"s":"héllo","n":{"b":null},"a.b":1}"#
        #expect(try logic(#"{"var":"a.1"}"#, data) == 6)
        #expect(try logic(#"{"var":"a.length"}"#, data) == 2)
        #expect(try logic(#"{"var":"s.length"}"#, data) == 5)
        #expect(try logic(#"{"var":"s.1"}"#, data) == "é")
        #expect(try logic(#"{"var":"a.01"}"#, data) == .null)
        // A null found is a value: the default replaces only what is absent.
        #expect(try logic(#"{"var":["n.b",7]}"#, data) == .null)
        #expect(try logic(#"{"var":["n.c",7]}"#, data) == 7)
        #expect(try logic(#"{"var":[["a.b"]]}"#, data) == 1)
        #expect(try logic(#"{"var":{"cat":["a",".",0]}}"#, data) == 5)
        #expect(try logic(#"{"var":[{"cat":["n",".c"]},{"+":[1,2]}]}"#, data) == 3)
    }

    @Test("and and or without arguments are null; if without a match is null")
    func empty() throws {
        #expect(try logic(#"{"and":[]}"#) == .null)
        #expect(try logic(#"{"or":[]}"#) == .null)
        #expect(try logic(#"{"if":[false,1]}"#) == .null)
    }
}

@Suite("JSON Logic: numbers")
struct LogicNumberTests {
    @Test("arithmetic as JavaScript's, integers kept exact", arguments: [
        (#"{"+":["3.5","1e1"]}"#, "13.5"), (#"{"+":["12px",1]}"#, "13"), (#"{"-":["12px",1]}"#, "null"),
        (#"{"+":[null,1]}"#, "null"), (#"{"-":[null,1]}"#, "-1"), (#"{"*":["2"]}"#, "\"2\""), (#"{"*":["2",3]}"#, "6"),
        (#"{"/":[1,0]}"#, "null"), (#"{"/":[-1,0]}"#, "null"), (#"{"/":[7,2]}"#, "3.5"), (#"{"/":[6,3]}"#, "2"),
        (#"{"%":[-7,2]}"#, "-1"), (#"{"%":[5,0]}"#, "null"), (#"{"%":[5.5,2]}"#, "1.5"),
        (#"{"+":[0.1,0.2]}"#, "0.30000000000000004"), (#"{"+":[1.5,1.5]}"#, "3"), (#"{"-":[0]}"#, "0"),
        (#"{"+":[9007199254740993,0]}"#, "9007199254740993"), (#"{"+":[]}"#, "0"), (#"{"+":"0x10"}"#, "0"),
        (#"{"-":["0x10",1]}"#, "15"), (#"{"-":["0b101",0]}"#, "5"), (#"{"-":["Infinity",0]}"#, "null"),
        (#"{"max":[]}"#, "null"), (#"{"max":[1,"a"]}"#, "null"), (#"{"min":[2,"1",3.5]}"#, "1"),
        (#"{"max":[1,2.5]}"#, "2.5"), (#"{"max":[[3],2]}"#, "3"),
    ])
    func arithmetic(rule: String, expected: String) throws {
        #expect(try logic(rule).serialized() == expected, "\(rule)")
    }

    @Test("integer overflow goes to a double, never traps", arguments: [
        (#"{"+":[9223372036854775807,1]}"#, 9223372036854775808.0),
        (#"{"*":[9223372036854775807,2]}"#, 18446744073709551614.0),
        (#"{"-":[-9223372036854775808]}"#, 9223372036854775808.0),
        (#"{"-":[-9223372036854775808,1]}"#, -9223372036854775809.0),
        (#"{"/":[-9223372036854775808,-1]}"#, 9223372036854775808.0),
        (#"{"+":[18446744073709551615,1]}"#, 18446744073709551616.0),
    ])
    func overflow(rule: String, expected: Double) throws {
        #expect(try logic(rule) == .double(expected), "\(rule)")
    }

    @Test("the remainder of the smallest integer by -1 is 0")
    func remainder() throws {
        #expect(try logic(#"{"%":[-9223372036854775808,-1]}"#) == 0)
    }
}

@Suite("JSON Logic: budget")
struct LogicBudgetTests {
    @Test("every node costs a step: {\"+\":[1,2]} takes three")
    func exactSteps() throws {
        #expect(try logic(#"{"+":[1,2]}"#, budget: 3) == 3)
        #expect(try logicError(#"{"+":[1,2]}"#, budget: 2)?.code == .logicBudgetExceeded)
    }

    @Test("each element map visits costs a step")
    func iteration() throws {
        let data = #"{"xs":"# + numbers(1000) + "}"
        let rule = #"{"map":[{"var":"xs"},{"+":[{"var":""},1]}]}"#
        #expect(try logicError(rule, data, budget: 1000)?.code == .logicBudgetExceeded)
        #expect(try logic(rule, data).arrayValue?.count == 1000)
        #expect(try logicError(#"{"all":[{"var":"xs"},true]}"#, data, budget: 500)?.code == .logicBudgetExceeded)
    }

    @Test("strings and arrays doubled in reduce run out of budget, not memory", arguments: [
        #"{"reduce":[{"var":"xs"},{"cat":[{"var":"accumulator"},{"var":"accumulator"}]},"ab"]}"#,
        #"{"reduce":[{"var":"xs"},{"merge":[{"var":"accumulator"},{"var":"accumulator"}]},[1]]}"#,
        #"{"reduce":[{"var":"xs"},[{"var":"accumulator"},{"var":"accumulator"}],0]}"#,
        #"{"reduce":[{"var":"xs"},{"object":{"a":{"var":"accumulator"},"b":{"var":"accumulator"}}},0]}"#,
        #"{"cat":{"reduce":[{"var":"xs"},[{"var":"accumulator"},{"var":"accumulator"}],0]}}"#,
    ])
    func doubling(rule: String) throws {
        let error = try logicError(rule, #"{"xs":"# + numbers(100) + "}")
        #expect(error?.code == .logicBudgetExceeded)
    }

    @Test("values nested through reduce's accumulator are bounded")
    func nesting() throws {
        let rule = #"{"reduce":[{"var":"xs"},[{"var":"accumulator"}],[]]}"#
        let error = try logicError(rule, #"{"xs":"# + numbers(2000) + "}")
        #expect(error?.code == .logicBudgetExceeded)
        #expect(error?.message.contains("nests deeper") == true)
        #expect(try logic(rule, #"{"xs":[1,2,3]}"#) == [[[[]]]])
        // The same through append.
        let append = #"{"reduce":[{"var":"xs"},{"append":[[],{"var":"accumulator"}]},[]]}"#
        #expect(try logicError(append, #"{"xs":"# + numbers(2000) + "}")?.code == .logicBudgetExceeded)
    }

    @Test("the result's size counts: data read many times over")
    func resultSize() throws {
        let data = numbers(20_000)
        let many = "[" + Array(repeating: #"{"var":""}"#, count: 200).joined(separator: ",") + "]"
        #expect(try logicError(many, data)?.code == .logicBudgetExceeded)
        #expect(try logicError(#"{"var":""}"#, data, budget: 1000)?.code == .logicBudgetExceeded)
        #expect(try logic(#"{"var":""}"#, data).arrayValue?.count == 20_000)
    }

    @Test("the budget is per evaluation: a rule runs again after one ran out")
    func perEvaluation() throws {
        let rule = try LogicRule(try json(#"{"map":[{"var":""},{"var":""}]}"#))
        let data = try json(numbers(50))
        var steps = LogicBudget(base: 10, perUnit: 0)
        #expect(yaiaError { () throws(YaiaError) in try rule.evaluate(data, budget: &steps) }?.code == .logicBudgetExceeded)
        #expect(try rule.evaluate(data) == data)
    }

    @Test("past the base, the budget follows the data: a pass over a big list fits")
    func followsTheData() throws {
        let data = #"{"xs":"# + numbers(100_000) + "}"
        let rule = #"{"map":[{"var":"xs"},{"+":[{"var":""},1]}]}"#
        // Four steps an element, four times the base; the data's share pays.
        #expect(try logic(rule, data).arrayValue?.count == 100_000)
        #expect(try logicError(rule, data, budget: LogicRule.defaultBudget)?.code == .logicBudgetExceeded)
        // The share is counted once the base is spent, only as far as the
        // steps taken need (the data is 100,003 units).
        let r = try LogicRule(try json(rule))
        var steps = LogicBudget()
        _ = try r.evaluate(try json(data), budget: &steps)
        let units = steps.dataUnits ?? 0
        #expect(units >= (400_000 - LogicRule.defaultBudget) / 16 && units < 100_003 && !steps.counted, "\(units)")
        #expect(steps.total == LogicRule.defaultBudget + 16 * units)
        var small = LogicBudget()
        _ = try r.evaluate(try json(#"{"xs":[1,2,3]}"#), budget: &small)
        #expect(small.dataUnits == nil)
    }

    @Test("what grows faster than the data still stops: a pass inside a pass, a result many times the data")
    func fasterThanTheData() throws {
        let data = #"{"xs":"# + numbers(2_000) + "}"
        let nested = #"{"map":[{"var":"xs"},{"some":[{"root":"xs"},{"===":[{"var":""},-1]}]}]}"#
        #expect(try logicError(nested, data)?.code == .logicBudgetExceeded)
        // A result may be twice the data, beyond what the base pays for.
        let r2 = try LogicRule(try json(#"{"merge":[{"var":"xs"},{"var":"xs"}]}"#))
        let r3 = try LogicRule(try json(#"{"merge":[{"var":"xs"},{"var":"xs"},{"var":"xs"}]}"#))
        let d = try json(data)
        var steps = LogicBudget(base: 100)
        #expect(try r2.evaluate(d, budget: &steps).arrayValue?.count == 4_000)
        steps = LogicBudget(base: 100)
        #expect(yaiaError { () throws(YaiaError) in try r3.evaluate(d, budget: &steps) }?.code == .logicBudgetExceeded)
    }

    @Test("running out is located at the rule and says how to raise the limit")
    func exceededMessage() throws {
        let rule = try LogicRule(try json(#"{"map":[{"var":"xs"},{"map":[{"root":"xs"},{"var":""}]}]}"#), at: "/rule")
        let data = try json(#"{"xs":"# + numbers(1_000) + "}")
        let error = yaiaError { () throws(YaiaError) in try rule.evaluate(data) }
        #expect(error?.code == .logicBudgetExceeded)
        #expect(error?.at == "/rule")
        let message = error?.message ?? ""
        #expect(message.contains("100000 (the \"logic_steps\" limit) and 16 for each of the 1003 units"), "\(message)")
        #expect(message.contains(#"{"limits": {"logic_steps": "#), "\(message)")
    }
}

@Suite("JSON Logic: problems")
struct LogicProblemTests {
    @Test("an unknown operator, located, with a suggestion")
    func unknownOperator() throws {
        let found = try problems(#"{"and":[true,{"mpa":[[1],{"var":""}]}]}"#)
        #expect(found == [LogicProblem(code: "unknown_operator", message: #"unknown operator "mpa"; did you mean "map"?"#, at: "/and/1/mpa")])
    }

    @Test("wrong arity where it is fixed", arguments: [
        (#"{"==":[1]}"#, "/=="), (#"{"!":[]}"#, "/!"), (#"{"?:":[1,2]}"#, "/?:"), (#"{"map":[[1]]}"#, "/map"),
        (#"{"reduce":[[1]]}"#, "/reduce"), (#"{"substr":["a"]}"#, "/substr"), (#"{"var":[1,2,3]}"#, "/var"),
        (#"{"*":[]}"#, "/*"), (#"{"missing_some":[1]}"#, "/missing_some"), (#"{"now":[1]}"#, "/now"),
        (#"{"object":["a"]}"#, "/object"), (#"{"if":[{"-":[1,2,3]}]}"#, "/if/0/-"),
    ])
    func arity(rule: String, at: String) throws {
        let found = try problems(rule)
        #expect(found.map(\.code) == ["arity"], "\(rule)")
        #expect(found.first?.at == at)
    }

    @Test("a var path that is not a string, a number or a list of them")
    func badPath() throws {
        #expect(try problems(#"{"var":true}"#).map(\.at) == ["/var"])
        #expect(try problems(#"{"var":[true]}"#).map(\.at) == ["/var/0"])
        #expect(try problems(#"{"var":[[1,false]]}"#).map(\.code) == ["bad_path"])
        #expect(try problems(#"{"var":{"a":1,"b":2}}"#).map(\.code) == ["bad_path"])
    }

    @Test("with roots, paths read from the data must start with one; element scopes are free")
    func roots() throws {
        let roots: Set<String> = ["state", "payload", "args", "env"]
        #expect(try problems(#"{"var":"state.items"}"#, roots: roots).isEmpty)
        #expect(try problems(#"{"var":""}"#, roots: roots).isEmpty)
        #expect(try problems(#"{"map":[{"var":"state.items"},{"var":"name"}]}"#, roots: roots).isEmpty)
        #expect(try problems(#"{"reduce":[{"var":"state.xs"},{"+":[{"var":"current"},{"var":"accumulator"}]},0]}"#, roots: roots).isEmpty)
        let typo = try problems(#"{"var":"stat.items"}"#, roots: roots)
        #expect(typo.map(\.code) == ["unknown_root"])
        #expect(typo.first?.message.contains(#"did you mean "state"?"#) == true)
        #expect(try problems(#"{"missing":["state.a","foo"]}"#, roots: roots).map(\.at) == ["/missing/1"])
        #expect(try problems(#"{"missing":"foo"}"#, roots: roots).map(\.at) == ["/missing"])
        #expect(try problems(#"{"missing_some":[1,["state.a","foo"]]}"#, roots: roots).map(\.at) == ["/missing_some/1/1"])
        #expect(try problems(#"{"now":[]}"#, roots: ["state"]).map(\.code) == ["unknown_root"])
        #expect(try problems(#"{"now":[]}"#, roots: roots).isEmpty)
        // root reads the data wherever it is.
        #expect(try problems(#"{"map":[{"var":"state.xs"},{"root":"foo.x"}]}"#, roots: roots).map(\.at) == ["/map/1/root"])
        #expect(try problems(#"{"var":[["foo","x"]]}"#, roots: roots).map(\.at) == ["/var/0"])
    }

    @Test("nesting beyond maxDepth is a problem, not a stack overflow")
    func tooDeep() throws {
        func nested(_ n: Int) -> String { String(repeating: #"{"!":"#, count: n) + "1" + String(repeating: "}", count: n) }
        #expect(LogicRule.problems(in: try json(nested(LogicRule.maxDepth))).isEmpty)
        #expect(try problems(nested(LogicRule.maxDepth + 1)).map(\.code) == ["too_deep"])
        let arrays = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(try problems(arrays).map(\.code) == ["too_deep"])
    }

    @Test("every problem at once, in order; compiling throws the first as bad_rule")
    func all() throws {
        let rule = try json(#"{"and":[{"foo":1},{"==":[1]},{"var":true},{"if":[{"bar":[]}]}]}"#)
        let found = LogicRule.problems(in: rule, at: "/rule")
        #expect(found.map(\.code) == ["unknown_operator", "arity", "bad_path", "unknown_operator"])
        #expect(found.map(\.at) == ["/rule/and/0/foo", "/rule/and/1/==", "/rule/and/2/var", "/rule/and/3/if/0/bar"])
        let error = yaiaError { () throws(YaiaError) in try LogicRule(rule, at: "/rule") }
        #expect(error == YaiaError(.badRule, found[0].message, at: "/rule/and/0/foo"))
    }

    @Test("pointers escape ~ and /")
    func escaping() throws {
        #expect(try problems(#"{"a/b~":1}"#).map(\.at) == ["/a~1b~0"])
    }

    @Test("objects of other sizes than one are values, not rules")
    func objectValues() throws {
        #expect(try logic(#"{"a":1,"b":{"c":2}}"#) == ["a": 1, "b": ["c": 2]])
        #expect(try logic("{}") == [:])
    }

    @Test("variables: what the rule reads from its data, in order, once each")
    func variables() throws {
        let rule = try LogicRule(try json(#"""
            {"and":[{"var":"state.a"},{"missing":["payload.x"]},{"map":[{"var":"state.items"},{"var":"name"}]},
                    {"now":[]},{"var":"state.a"},{"root":"args.id"},{"var":1}]}
            """#))
        #expect(rule.variables == ["state.a", "payload.x", "state.items", "env.now", "args.id", "1"])
    }
}

@Suite("JSON Logic: scene extras")
struct LogicExtraTests {
    @Test("now reads env.now from the data, never a clock")
    func now() throws {
        #expect(try logic(#"{"now":[]}"#, #"{"env":{"now":1700000000.5}}"#) == 1700000000.5)
        #expect(try logic(#"{"now":null}"#, #"{"env":{}}"#) == .null)
        #expect(try logic(#"{"map":[[1],{"now":[]}]}"#, #"{"env":{"now":7}}"#) == [7])
    }

    @Test("root reads the data inside map, filter, reduce and find")
    func root() throws {
        let data = #"{"state":{"items":[{"id":1},{"id":2}]},"payload":{"id":2}}"#
        #expect(try logic(#"{"find":[{"var":"state.items"},{"==":[{"var":"id"},{"root":"payload.id"}]}]}"#, data) == ["id": 2])
        #expect(try logic(#"{"filter":[{"var":"state.items"},{"!=":[{"var":"id"},{"root":["payload.id"]}]}]}"#, data) == [["id": 1]])
        #expect(try logic(#"{"root":["payload.nothing","x"]}"#, data) == "x")
        #expect(try logic(#"{"root":{"cat":["payload",".id"]}}"#, data) == 2)
    }

    @Test("string helpers")
    func strings() throws {
        #expect(try logic(#"{"lower":"ÀBC"}"#) == "àbc")
        #expect(try logic(#"{"upper":["straße"]}"#) == "STRASSE")
        #expect(try logic(#"{"trim":" \u00a0 a b\n\u3000"}"#) == "a b")
        #expect(try logic(#"{"trim":null}"#) == "")
        #expect(try logic(#"{"startsWith":["hello","he"]}"#) == true)
        #expect(try logic(#"{"endsWith":["hello","lo"]}"#) == true)
        #expect(try logic(#"{"endsWith":["hello","he"]}"#) == false)
        #expect(try logic(#"{"split":["a,b,,c,",","]}"#) == ["a", "b", "", "c", ""])
        #expect(try logic(#"{"split":["héj",""]}"#) == ["h", "é", "j"])
        #expect(try logic(#"{"split":["",","]}"#) == [""])
        #expect(try logic(#"{"join":[[1,null,"x",[2,3]],"-"]}"#) == "1--x-2,3")
        #expect(try logic(#"{"join":[["a","b"]]}"#) == "a,b")
        #expect(try logic(#"{"join":[null,"-"]}"#) == "")
    }

    @Test("length of strings (Unicode scalars), lists and objects; null is 0")
    func length() throws {
        #expect(try logic(#"{"length":"héllo"}"#) == 5)
        #expect(try logic(#"{"length":[[1,2,3]]}"#) == 3)
        #expect(try logic(#"{"length":{"var":""}}"#, #"{"a":1,"b":2}"#) == 2)
        #expect(try logic(#"{"length":null}"#) == 0)
        let error = try logicError(#"{"if":[true,{"length":5}]}"#)
        #expect(error == YaiaError(.logicError, #""length" takes a string, a list or an object, not a number"#, at: "/if/1/length"))
    }

    @Test("list helpers: append, remove, without, replaceById, find")
    func lists() throws {
        let data = #"{"xs":[{"id":1,"t":"a"},{"id":2,"t":"b"},{"id":3,"t":"a"}]}"#
        #expect(try logic(#"{"append":[[1,2],[3]]}"#) == [1, 2, [3]])
        #expect(try logic(#"{"append":[null,1]}"#) == [1])
        #expect(try logic(#"{"remove":[[1,2,3],0]}"#) == [2, 3])
        #expect(try logic(#"{"remove":[[1,2,3],-1]}"#) == [1, 2])
        #expect(try logic(#"{"remove":[[1,2,3],3]}"#) == [1, 2, 3])
        #expect(try logic(#"{"without":[{"var":"xs"},"t","a"]}"#, data) == [["id": 2, "t": "b"]])
        #expect(try logic(#"{"without":[{"var":"xs"},"id",2.0]}"#, data).arrayValue?.count == 2)
        #expect(try logic(#"{"replaceById":[{"var":"xs"},{"object":{"id":2,"t":"z"}}]}"#, data)
            == [["id": 1, "t": "a"], ["id": 2, "t": "z"], ["id": 3, "t": "a"]])
        #expect(try logic(#"{"replaceById":[{"var":"xs"},{"object":{"id":9}}]}"#, data) == (try json(data))["xs"])
        #expect(try logic(#"{"find":[{"var":"xs"},{"==":[{"var":"t"},"a"]}]}"#, data) == ["id": 1, "t": "a"])
        #expect(try logic(#"{"find":[{"var":"xs"},false]}"#, data) == .null)
        #expect(try logic(#"{"find":[5,true]}"#) == .null)
    }

    @Test("list helpers refuse what is not a list, with logic_error located in the rule")
    func refusals() throws {
        #expect(try logicError(#"{"append":[5,1]}"#) == YaiaError(.logicError, #""append" takes a list (or null) first, not a number"#, at: "/append"))
        #expect(try logicError(#"{"and":[1,{"remove":[[1],"x"]}]}"#)?.at == "/and/1/remove")
        #expect(try logicError(#"{"replaceById":[[],{"object":{"x":1}}]}"#)?.code == .logicError)
        #expect(try logicError(#"{"without":["abc","id",1]}"#)?.code == .logicError)
        #expect(try logicError(#"{"set":[[1],"a",1]}"#)?.code == .logicError)
        #expect(try logicError(#"{"join":[{"var":""},","]}"#, "5")?.code == .logicError)
    }

    @Test("object builds objects from an object of rules or from key, value pairs; set sets one key")
    func objects() throws {
        let data = #"{"p":{"id":7,"name":"n"}}"#
        #expect(try logic(#"{"object":{"id":{"var":"p.id"},"tags":[{"var":"p.name"}],"done":false}}"#, data)
            == ["id": 7, "tags": ["n"], "done": false])
        #expect(try logic(#"{"object":[{"cat":["k",1]},1,"b",{"var":"p.name"}]}"#, data) == ["k1": 1, "b": "n"])
        #expect(try logic(#"{"object":[]}"#) == [:])
        #expect(try logic(#"{"set":[{"var":"p"},"name","m"]}"#, data) == ["id": 7, "name": "m"])
        #expect(try logic(#"{"set":[null,"a",1]}"#) == ["a": 1])
    }

    @Test("a reducer's update: map with set and root toggles one item")
    func toggle() throws {
        let rule = #"""
            {"map":[{"var":"state.todos"},
                    {"if":[{"==":[{"var":"id"},{"root":"payload.id"}]},
                           {"set":[{"var":""},"done",{"!":{"var":"done"}}]},
                           {"var":""}]}]}
            """#
        let data = #"{"state":{"todos":[{"id":1,"done":false},{"id":2,"done":false}]},"payload":{"id":2}}"#
        #expect(try logic(rule, data) == [["id": 1, "done": false], ["id": 2, "done": true]])
    }
}

@Suite("JSON Logic: work paid for")
struct LogicWorkTests {
    /// {"map":[[1],[X,X]]} around X, `levels` times: a value of 2^levels
    /// leaves built in a few steps a level, its parts shared.
    private func doubling(_ levels: Int, leaf: String = "1") -> String {
        var rule = leaf
        for _ in 0..<levels { rule = #"{"map":[["# + rule + #"],[{"var":""},{"var":""}]]}"# }
        return rule
    }

    @Test("a value shared 2^30 times over is built cheaply, but writing it out is paid for")
    func sharedResult() throws {
        #expect(try logicError(doubling(30))?.code == .logicBudgetExceeded)
        #expect(try logic(doubling(3)).serialized().filter { $0 == "1" }.count == 8)
    }

    @Test("text, comparisons and equality of shared values are paid for", arguments: [
        #"{"cat":[X]}"#, #"{"<":[X,"a"]}"#, #"{"==":[X,"1"]}"#, #"{"in":["x",{"cat":X}]}"#,
        #"{"join":[X,","]}"#, #"{"-":[X,1]}"#,
    ])
    func sharedWork(rule: String) throws {
        let expanded = rule.split(separator: "X", omittingEmptySubsequences: false).joined(separator: doubling(40))
        #expect(try logicError(expanded)?.code == .logicBudgetExceeded, "\(rule)")
    }

    @Test("equality of a shared value with itself costs nothing")
    func sharedEquality() throws {
        let rule = #"{"===":[{"var":""},{"var":""}]}"#
        #expect(try logic(rule, numbers(100_000), budget: 10) == true)
    }

    @Test("the budget is saturated, not overflowed, for the largest budgets")
    func largestBudget() throws {
        #expect(try logic(#"{"var":""}"#, "[1,2]", budget: .max) == [1, 2])
    }
}
