import YaiaKit

/// JSON Logic (jsonlogic.com): rules as JSON, evaluated against JSON data.
/// docs/logic.md lists the operators, the scene extras, the budget and the errors.
///
/// A rule is compiled once into a flat program (operators resolved, `var`
/// paths split) and evaluated many times; evaluation is pure: no clock, no IO.
public struct LogicRule: Sendable {
    /// Steps an evaluation may take unless told otherwise.
    public static let defaultBudget = 100_000
    /// How deeply operators and arrays may nest in a rule.
    public static let maxDepth = 100
    /// How deeply a value built inside `reduce` may nest.
    public static let maxValueDepth = 512

    let program: LogicProgram

    /// Compiles `rule`. Throws the first problem as `bad_rule`, its "at" a
    /// JSON Pointer into the rule below `pointer`. With `roots`, every path
    /// read from the data must start with one of them.
    public init(_ rule: JSON, roots: Set<String>? = nil, at pointer: String = "") throws(YaiaError) {
        var compiler = LogicCompiler(roots: roots, base: pointer, firstOnly: true)
        let root = compiler.compile(rule, .top)
        if let problem = compiler.problems.first { throw problem.error }
        program = LogicProgram(compiler, root: root)
    }

    /// Every problem of `rule` at once, in the order they occur; empty when it compiles.
    public static func problems(in rule: JSON, roots: Set<String>? = nil, at pointer: String = "") -> [LogicProblem] {
        var compiler = LogicCompiler(roots: roots, base: pointer, firstOnly: false)
        _ = compiler.compile(rule, .top)
        return compiler.problems
    }

    /// The rule's value for `data`. A rule that takes more than `budget`
    /// steps stops with `logic_budget_exceeded`; an extra given a value it
    /// cannot take fails with `logic_error` (its "at" points into the rule).
    public func evaluate(_ data: JSON, budget: Int = LogicRule.defaultBudget) throws(YaiaError) -> JSON {
        var steps = budget
        return try evaluate(data, steps: &steps)
    }

    /// `evaluate` within `steps`, which loses the steps taken: several
    /// rules may share one budget (a scene document's reduction does).
    public func evaluate(_ data: JSON, steps: inout Int) throws(YaiaError) -> JSON {
        let budget = steps
        var machine = LogicMachine(program, data: data, budget: steps)
        defer { steps = machine.steps }
        do throws(LogicStop) {
            let value = try machine.eval(program.root, .data(data))
            try machine.chargeResult(value)
            return value
        } catch {
            throw error.yaiaError(budget: budget)
        }
    }

    /// The paths the rule reads from its data (outside map, filter, reduce,
    /// all, none, some and find, whose bodies read their elements), the keys
    /// `missing` and `missing_some` test, `root` paths, and "env.now" for
    /// `now`; dotted, in order of appearance, without repeats.
    public var variables: [String] {
        var seen: Set<String> = []
        return program.reads.compactMap { i in
            let dotted = program.paths[Int(i)].dotted
            return seen.insert(dotted).inserted ? dotted : nil
        }
    }
}

/// A problem found while compiling a rule.
public struct LogicProblem: Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem: "unknown_operator", "arity", "bad_path",
    /// "unknown_root" or "too_deep".
    public var code: String
    public var message: String
    /// JSON Pointer into the rule (below the pointer the rule was compiled at).
    public var at: String

    public init(code: String, message: String, at: String) {
        self.code = code
        self.message = message
        self.at = at
    }

    /// As the `bad_rule` error compiling throws.
    public var error: YaiaError { YaiaError(.badRule, message, at: at) }

    public var description: String { "\(code) at \(at.isEmpty ? "the rule" : at): \(message)" }
}

public enum Logic {
    /// Compiles `rule` and evaluates it once against `data` with the default budget.
    public static func apply(_ rule: JSON, to data: JSON) throws(YaiaError) -> JSON {
        try LogicRule(rule).evaluate(data)
    }
}
