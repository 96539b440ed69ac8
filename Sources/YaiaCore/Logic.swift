/// JSON Logic (jsonlogic.com): rules as JSON, evaluated against JSON data.
/// docs/logic.md lists the operators, the scene extras, the budget and the errors.
///
/// A rule is compiled once into a tree of nodes (operators resolved, `var`
/// paths split) and evaluated many times; evaluation is pure: no clock, no IO.
public struct LogicRule: Sendable {
    /// Steps an evaluation may take unless told otherwise.
    public static let defaultBudget = 100_000
    /// How deeply operators and arrays may nest in a rule.
    public static let maxDepth = 100
    /// How deeply a value built inside `reduce` may nest.
    public static let maxValueDepth = 512

    let root: LogicNode
    /// The `var` paths the rule reads from its data (outside map, filter,
    /// reduce, all, none, some and find, whose bodies read their elements),
    /// the keys `missing` and `missing_some` test, `root` paths, and
    /// "env.now" for `now`; dotted, in order of appearance, without repeats.
    public let variables: [String]

    /// Compiles `rule`. Throws the first problem as `bad_rule`, its "at" a
    /// JSON Pointer into the rule below `pointer`. With `roots`, every path
    /// read from the data must start with one of them.
    public init(_ rule: JSON, roots: Set<String>? = nil, at pointer: String = "") throws(YaiaError) {
        var compiler = LogicCompiler(roots: roots, base: pointer, firstOnly: true)
        let node = compiler.compile(rule, .top)
        if let problem = compiler.problems.first { throw problem.error }
        root = node
        variables = compiler.variables
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
        var machine = LogicMachine(data: data, budget: budget)
        do throws(LogicStop) {
            let value = try machine.eval(root, .data(data))
            try machine.chargeResult(value)
            return value
        } catch {
            throw error.yaiaError(budget: budget)
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

// MARK: - Compiled form

/// A `var` path split at compile time. `head` tells a reduce body's
/// "current" and "accumulator" apart without comparing strings.
struct LogicPath: Sendable {
    enum Head: Sendable { case current, accumulator, other }
    struct Segment: Sendable {
        var key: String
        /// The array index the key names (JavaScript reads "1" of an array as its element 1).
        var index: Int?
        init(_ key: String) {
            self.key = key
            index = LogicPath.arrayIndex(key)
        }
    }
    var segments: [Segment]
    var head: Head

    init(_ segments: [Segment]) {
        self.segments = segments
        switch segments.first?.key {
        case "current"?: head = .current
        case "accumulator"?: head = .accumulator
        default: head = .other
        }
    }

    /// A dotted path as JavaScript splits it: "a..b" has an empty middle key.
    init(dotted: String) {
        if dotted.isEmpty { self.init([]); return }
        self.init(dotted.split(separator: ".", omittingEmptySubsequences: false).map { Segment(String($0)) })
    }

    var dotted: String { segments.map(\.key).joined(separator: ".") }

    /// "0", "1", ... but not "01", "-1" or "1.0".
    static func arrayIndex(_ key: String) -> Int? {
        let u = key.utf8
        guard let first = u.first, first >= 0x30, first <= 0x39, u.count <= 18 else { return nil }
        if first == 0x30 { return u.count == 1 ? 0 : nil }
        var n = 0
        for c in u {
            guard c >= 0x30, c <= 0x39 else { return nil }
            n = n * 10 + Int(c - 0x30)
        }
        return n
    }
}

/// Operators whose arguments are all evaluated before they run.
enum LogicOp: UInt8, Sendable {
    case equal, strictEqual, notEqual, strictNotEqual, not, truthy
    case greater, greaterOrEqual, less, lessOrEqual
    case max, min, add, subtract, multiply, divide, modulo
    case merge, `in`, cat, substr, log, missing, missingSome
    // Scene extras.
    case now, lower, upper, trim, length, startsWith, endsWith, split, join
    case append, remove, without, replaceById, set
}

enum LogicIteration: UInt8, Sendable { case map, filter, all, none, some, find }

indirect enum LogicNode: Sendable {
    case literal(JSON)
    /// An array holding rules: evaluated element by element. `checked`
    /// (inside a reduce body) bounds the nesting of what it wraps.
    case array([LogicNode], checked: Bool)
    case path(LogicPath, LogicNode?)
    case dynamicPath(LogicNode, LogicNode?)
    case rootPath(LogicPath, LogicNode?)
    case dynamicRootPath(LogicNode, LogicNode?)
    case branch([LogicNode])
    case and([LogicNode])
    case or([LogicNode])
    case iterate(LogicIteration, LogicNode, LogicNode, checked: Bool)
    case reduce(LogicNode, LogicNode, LogicNode?)
    case object([LogicNode], checked: Bool)  // keys and values, alternating
    case unary(LogicOp, LogicNode)
    case binary(LogicOp, LogicNode, LogicNode)
    case nary(LogicOp, [LogicNode], checked: Bool)
    /// An extra that may refuse its arguments: `at` locates it for `logic_error`.
    case extra(LogicOp, [LogicNode], at: String, checked: Bool)
}

// MARK: - Operators

struct LogicOperator {
    enum Kind { case op(LogicOp), variable, root, branch, and, or, iterate(LogicIteration), reduce, object }
    var kind: Kind
    var min: Int
    var max: Int?
    /// Extras that refuse some values carry their location.
    var located = false
}

let logicOperators: [String: LogicOperator] = {
    func op(_ o: LogicOp, _ min: Int, _ max: Int?, located: Bool = false) -> LogicOperator {
        LogicOperator(kind: .op(o), min: min, max: max, located: located)
    }
    return [
        "var": LogicOperator(kind: .variable, min: 0, max: 2),
        "missing": op(.missing, 0, nil),
        "missing_some": op(.missingSome, 2, 2),
        "if": LogicOperator(kind: .branch, min: 0, max: nil),
        "?:": LogicOperator(kind: .branch, min: 3, max: 3),
        "==": op(.equal, 2, 2), "===": op(.strictEqual, 2, 2),
        "!=": op(.notEqual, 2, 2), "!==": op(.strictNotEqual, 2, 2),
        "!": op(.not, 1, 1), "!!": op(.truthy, 1, 1),
        "or": LogicOperator(kind: .or, min: 0, max: nil),
        "and": LogicOperator(kind: .and, min: 0, max: nil),
        ">": op(.greater, 2, 2), ">=": op(.greaterOrEqual, 2, 2),
        "<": op(.less, 2, 3), "<=": op(.lessOrEqual, 2, 3),
        "max": op(.max, 0, nil), "min": op(.min, 0, nil),
        "+": op(.add, 0, nil), "*": op(.multiply, 1, nil),
        "-": op(.subtract, 1, 2), "/": op(.divide, 2, 2), "%": op(.modulo, 2, 2),
        "map": LogicOperator(kind: .iterate(.map), min: 2, max: 2),
        "filter": LogicOperator(kind: .iterate(.filter), min: 2, max: 2),
        "all": LogicOperator(kind: .iterate(.all), min: 2, max: 2),
        "none": LogicOperator(kind: .iterate(.none), min: 2, max: 2),
        "some": LogicOperator(kind: .iterate(.some), min: 2, max: 2),
        "reduce": LogicOperator(kind: .reduce, min: 2, max: 3),
        "merge": op(.merge, 0, nil),
        "in": op(.in, 2, 2),
        "cat": op(.cat, 0, nil),
        "substr": op(.substr, 2, 3),
        "log": op(.log, 1, 1),
        // Scene extras.
        "now": op(.now, 0, 0),
        "root": LogicOperator(kind: .root, min: 1, max: 2),
        "lower": op(.lower, 1, 1), "upper": op(.upper, 1, 1), "trim": op(.trim, 1, 1),
        "length": op(.length, 1, 1, located: true),
        "startsWith": op(.startsWith, 2, 2), "endsWith": op(.endsWith, 2, 2),
        "split": op(.split, 2, 2), "join": op(.join, 1, 2, located: true),
        "append": op(.append, 2, 2, located: true),
        "remove": op(.remove, 2, 2, located: true),
        "without": op(.without, 3, 3, located: true),
        "replaceById": op(.replaceById, 2, 2, located: true),
        "set": op(.set, 3, 3, located: true),
        "find": LogicOperator(kind: .iterate(.find), min: 2, max: 2),
        "object": LogicOperator(kind: .object, min: 0, max: nil),
    ]
}()

// MARK: - Compiler

struct LogicCompiler {
    /// Where a rule is compiled: at its top, data is the data the rule was
    /// given (roots are checked, variables collected); in an iteration body
    /// it is the element. `inReduce`: lexically inside a reduce body, where
    /// values fed back through the accumulator could nest without bound.
    struct Scope {
        var top: Bool
        var inReduce: Bool
        static let top = Scope(top: true, inReduce: false)
    }

    enum Token { case key(String), index(Int) }

    let roots: Set<String>?
    let base: String
    let firstOnly: Bool
    var problems: [LogicProblem] = []
    var variables: [String] = []
    var seen: Set<String> = []
    var tokens: [Token] = []
    var depth = 0

    init(roots: Set<String>?, base: String, firstOnly: Bool) {
        self.roots = roots
        self.base = base
        self.firstOnly = firstOnly
    }

    var pointer: String {
        var p = base
        for t in tokens {
            switch t {
            case .key(let k): p = JSONPointer.appending(p, k)
            case .index(let i): p = JSONPointer.appending(p, i)
            }
        }
        return p
    }

    var done: Bool { firstOnly && !problems.isEmpty }

    mutating func problem(_ code: String, _ message: String) {
        guard !done else { return }
        problems.append(LogicProblem(code: code, message: message, at: pointer))
    }

    mutating func compile(_ rule: JSON, _ scope: Scope) -> LogicNode {
        switch rule {
        case .array(let items):
            guard enter() else { return .literal(.null) }
            defer { depth -= 1 }
            var nodes: [LogicNode] = []
            nodes.reserveCapacity(items.count)
            var constant = true
            for (i, item) in items.enumerated() {
                tokens.append(.index(i))
                let node = compile(item, scope)
                tokens.removeLast()
                if case .literal = node {} else { constant = false }
                nodes.append(node)
            }
            return constant ? .literal(rule) : .array(nodes, checked: scope.inReduce)
        case .object(let o) where o.count == 1:
            guard enter() else { return .literal(.null) }
            defer { depth -= 1 }
            let member = o.members[0]
            tokens.append(.key(member.key))
            defer { tokens.removeLast() }
            return compileOperator(member.key, member.value, scope)
        default:
            // Scalars, and objects of other sizes, are values as they are.
            return .literal(rule)
        }
    }

    mutating func enter() -> Bool {
        depth += 1
        if depth > LogicRule.maxDepth {
            problem("too_deep", "the rule nests operators and arrays more than \(LogicRule.maxDepth) deep")
            depth -= 1
            return false
        }
        return true
    }

    /// Argument `i` of an operator: its operand's element, or the operand itself when that is no array.
    mutating func argument(_ args: [JSON], _ i: Int, wrapped: Bool, _ scope: Scope) -> LogicNode {
        if wrapped { return compile(args[i], scope) }
        tokens.append(.index(i))
        defer { tokens.removeLast() }
        return compile(args[i], scope)
    }

    mutating func arguments(_ args: [JSON], wrapped: Bool, _ scope: Scope) -> [LogicNode] {
        var nodes: [LogicNode] = []
        nodes.reserveCapacity(args.count)
        for i in args.indices { nodes.append(argument(args, i, wrapped: wrapped, scope)) }
        return nodes
    }

    mutating func compileOperator(_ name: String, _ operand: JSON, _ scope: Scope) -> LogicNode {
        let wrapped: Bool
        var args: [JSON]
        if case .array(let a) = operand { args = a; wrapped = false } else { args = [operand]; wrapped = true }
        guard let spec = logicOperators[name] else {
            problem("unknown_operator", "unknown operator \"\(name)\"" + Suggestion.hint(name, among: logicOperators.keys))
            // Its arguments may hold problems too.
            _ = arguments(args, wrapped: wrapped, scope)
            return .literal(.null)
        }
        if case .object = spec.kind, case .object(let members) = operand {
            return compileObject(members, scope)
        }
        // {"now": null} reads as {"now": []}.
        if spec.max == 0, wrapped, operand.isNull { args = [] }
        if args.count < spec.min || spec.max.map({ args.count > $0 }) == true {
            problem("arity", "\"\(name)\" takes \(arity(spec)), not \(args.count)")
            _ = arguments(args, wrapped: wrapped, scope)
            return .literal(.null)
        }
        switch spec.kind {
        case .variable:
            return compileVariable(args, wrapped: wrapped, scope, fromRoot: false)
        case .root:
            return compileVariable(args, wrapped: wrapped, scope, fromRoot: true)
        case .branch:
            return .branch(arguments(args, wrapped: wrapped, scope))
        case .and:
            return .and(arguments(args, wrapped: wrapped, scope))
        case .or:
            return .or(arguments(args, wrapped: wrapped, scope))
        case .iterate(let kind):
            let list = argument(args, 0, wrapped: wrapped, scope)
            let body = argument(args, 1, wrapped: wrapped, Scope(top: false, inReduce: scope.inReduce))
            return .iterate(kind, list, body, checked: scope.inReduce)
        case .reduce:
            let list = argument(args, 0, wrapped: wrapped, scope)
            let body = argument(args, 1, wrapped: wrapped, Scope(top: false, inReduce: true))
            let initial = args.count > 2 ? argument(args, 2, wrapped: wrapped, scope) : nil
            return .reduce(list, body, initial)
        case .object:
            guard args.count % 2 == 0 else {
                problem("arity", "\"object\" takes an object of rules, or keys and values in pairs: an even count, not \(args.count)")
                return .literal(.null)
            }
            return .object(arguments(args, wrapped: wrapped, scope), checked: scope.inReduce)
        case .op(let op):
            if scope.top { noteReads(op, args, wrapped: wrapped) }
            let nodes = arguments(args, wrapped: wrapped, scope)
            if spec.located { return .extra(op, nodes, at: pointer, checked: scope.inReduce) }
            switch nodes.count {
            case 1 where op != .merge && op != .missing: return .unary(op, nodes[0])
            case 2 where op != .merge && op != .missing: return .binary(op, nodes[0], nodes[1])
            default: return .nary(op, nodes, checked: scope.inReduce)
            }
        }
    }

    func arity(_ spec: LogicOperator) -> String {
        func n(_ k: Int) -> String { k == 1 ? "1 argument" : "\(k) arguments" }
        guard let max = spec.max else { return "at least " + n(spec.min) }
        if max == spec.min { return max == 0 ? "no arguments" : n(max) }
        return max == spec.min + 1 ? "\(spec.min) or " + n(max) : "\(spec.min) to " + n(max)
    }

    mutating func compileObject(_ members: JSONObject, _ scope: Scope) -> LogicNode {
        var nodes: [LogicNode] = []
        nodes.reserveCapacity(members.count * 2)
        for m in members.members {
            tokens.append(.key(m.key))
            nodes.append(.literal(.string(m.key)))
            nodes.append(compile(m.value, scope))
            tokens.removeLast()
        }
        return .object(nodes, checked: scope.inReduce)
    }

    mutating func compileVariable(_ args: [JSON], wrapped: Bool, _ scope: Scope, fromRoot: Bool) -> LogicNode {
        let fallback = args.count > 1 ? argument(args, 1, wrapped: wrapped, scope) : nil
        let spec = args.first ?? .null
        func located<T>(_ body: (inout LogicCompiler) -> T) -> T {
            if wrapped { return body(&self) }
            tokens.append(.index(0))
            defer { tokens.removeLast() }
            return body(&self)
        }
        let path: LogicPath
        switch spec {
        case .null: path = LogicPath([])
        case .string(let s): path = LogicPath(dotted: s)
        case .int, .uint, .double: path = LogicPath(dotted: LogicMachine.numberText(spec))
        case .array(let items) where items.allSatisfy({ $0.isNumber || $0.stringValue != nil }):
            path = LogicPath(items.map { LogicPath.Segment($0.stringValue ?? LogicMachine.numberText($0)) })
        case .array(let items) where items.contains(where: { $0.objectValue?.count == 1 }):
            // Segments computed by rules.
            let node = located { $0.compile(spec, scope) }
            return fromRoot ? .dynamicRootPath(node, fallback) : .dynamicPath(node, fallback)
        case .object(let o) where o.count == 1:
            let node = located { $0.compile(spec, scope) }
            return fromRoot ? .dynamicRootPath(node, fallback) : .dynamicPath(node, fallback)
        default:
            located { $0.problem("bad_path", "a path is a string, a number, or an array of strings and numbers; not \(spec.kindName)") }
            return .literal(.null)
        }
        if fromRoot || scope.top { located { $0.read(path) } }
        return fromRoot ? .rootPath(path, fallback) : .path(path, fallback)
    }

    /// Records a path read from the rule's data, and checks its root.
    mutating func read(_ path: LogicPath) {
        guard let first = path.segments.first else { return }
        if let roots, !roots.contains(first.key) {
            let known = roots.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            problem("unknown_root", "\"\(path.dotted)\" starts with \"\(first.key)\", not one of the roots: \(known)"
                + Suggestion.hint(first.key, among: roots))
        }
        let dotted = path.dotted
        if seen.insert(dotted).inserted { variables.append(dotted) }
    }

    /// What `missing`, `missing_some` and `now` read, where it is written in the rule.
    mutating func noteReads(_ op: LogicOp, _ args: [JSON], wrapped: Bool) {
        func keys(_ list: JSON, _ token: Token?) {
            if let token { tokens.append(token) }
            defer { if token != nil { tokens.removeLast() } }
            switch list {
            case .string(let s): read(LogicPath(dotted: s))
            case .int, .uint, .double: read(LogicPath(dotted: LogicMachine.numberText(list)))
            case .array(let items):
                for (i, item) in items.enumerated() where item.stringValue != nil || item.isNumber {
                    keys(item, .index(i))
                }
            default: break
            }
        }
        switch op {
        case .missing:
            // A list first is the list of keys; else the arguments are.
            if case .array = args.first { keys(args[0], wrapped ? nil : .index(0)) }
            else { for (i, a) in args.enumerated() where a.isNumber || a.stringValue != nil { keys(a, wrapped ? nil : .index(i)) } }
        case .missingSome:
            keys(args[1], .index(1))
        case .now:
            read(LogicPath(dotted: "env.now"))
        default:
            break
        }
    }
}
