import YaiaKit

/// JSON Logic (jsonlogic.com): rules as JSON, evaluated against JSON data.
/// docs/logic.md lists the operators, the scene extras, the budget and the errors.
///
/// A rule is compiled once into a flat program (operators resolved, `var`
/// paths split) and evaluated many times; evaluation is pure: no clock, no IO.
public struct LogicRule: Sendable {
    /// Steps an evaluation may take unless told otherwise, before the
    /// data's share (LogicBudget).
    public static let defaultBudget = LogicBudget.defaultBase
    /// How deeply operators and arrays may nest in a rule.
    public static let maxDepth = 100
    /// How deeply a value built inside `reduce` may nest.
    public static let maxValueDepth = 512

    let program: LogicProgram
    /// Where the rule was compiled: the "at" of `logic_budget_exceeded`.
    public let at: String

    /// Compiles `rule`. Throws the first problem as `bad_rule`, its "at" a
    /// JSON Pointer into the rule below `pointer`. With `roots`, every path
    /// read from the data must start with one of them.
    public init(_ rule: JSON, roots: Set<String>? = nil, at pointer: String = "") throws(YaiaError) {
        try self.init(rule, roots: roots, at: pointer, fusing: true)
    }

    /// `rule` compiled without the fused search (LogicSearch): the general
    /// path it stands in for, which the tests and the paths bench compare.
    package init(unfused rule: JSON) throws(YaiaError) {
        try self.init(rule, roots: nil, at: "", fusing: false)
    }

    private init(_ rule: JSON, roots: Set<String>?, at pointer: String, fusing: Bool) throws(YaiaError) {
        var compiler = LogicCompiler(roots: roots, base: pointer, firstOnly: true)
        compiler.fuses = fusing
        let root = compiler.compile(rule, .top)
        if let problem = compiler.problems.first { throw problem.error }
        program = LogicProgram(compiler, root: root)
        at = pointer
    }

    /// `rule`'s truth value (`!!`), its pointers those of `rule`: a
    /// document's `when`.
    public init(truthOf rule: JSON, roots: Set<String>? = nil, at pointer: String = "") throws(YaiaError) {
        var compiler = LogicCompiler(roots: roots, base: pointer, firstOnly: true)
        let operand = compiler.compile(rule, .top)
        if let problem = compiler.problems.first { throw problem.error }
        let root = compiler.emit(LogicInstruction(kind: .unary, op: .truthy, a: operand))
        program = LogicProgram(compiler, root: root)
        at = pointer
    }

    /// Every problem of `rule` at once, in the order they occur; empty when it compiles.
    public static func problems(in rule: JSON, roots: Set<String>? = nil, at pointer: String = "") -> [LogicProblem] {
        var compiler = LogicCompiler(roots: roots, base: pointer, firstOnly: false)
        _ = compiler.compile(rule, .top)
        return compiler.problems
    }

    /// The rule's value for `data`, within `budget` steps and the data's
    /// share (LogicBudget). A rule that runs out stops with
    /// `logic_budget_exceeded` (its "at" the rule's pointer); an extra given
    /// a value it cannot take fails with `logic_error` (its "at" points into
    /// the rule).
    public func evaluate(_ data: JSON, budget: Int = LogicRule.defaultBudget) throws(YaiaError) -> JSON {
        var steps = LogicBudget(base: budget)
        return try evaluate(data, budget: &steps)
    }

    /// `evaluate` within `budget`, which loses the steps taken: several
    /// rules given the same data may share one budget (a scene document's
    /// reduction does).
    public func evaluate(_ data: JSON, budget: inout LogicBudget) throws(YaiaError) -> JSON {
        var machine = LogicMachine(program, data: data, budget: budget)
        defer { budget = machine.budget }
        do throws(LogicStop) {
            let value = try machine.eval(program.root, .data(data))
            try machine.chargeResult(value)
            return value
        } catch {
            throw error.yaiaError(machine.budget, at: at)
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
