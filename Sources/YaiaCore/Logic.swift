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
        guard dotted.utf8.contains(UInt8(ascii: ".")) else { self.init([Segment(dotted)]); return }
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

/// One node of a compiled rule: plain data, so that reading it costs no
/// reference counting. `a`, `b` and `c` are indices whose meaning `kind` gives.
struct LogicInstruction: Sendable {
    enum Kind: UInt8, Sendable {
        case literal          // constants[a]
        case null, bool, int  // the value in a (and b: an integer's high half)
        case array            // lists[a..<a+b]; `checked`: inside a reduce body
        case path             // paths[a], default b (or -1)
        case dynamicPath      // path computed by a, default b
        case rootPath, dynamicRootPath
        case branch, and, or  // lists[a..<a+b]
        case iterate          // `iteration` of list a with body b
        case reduce           // list a, body b, initial c (or -1)
        case object           // keys and values alternating in lists[a..<a+b]
        case unary            // `op` of a
        case binary           // `op` of a, b
        case nary             // `op` of lists[a..<a+b]
        case extra            // as nary; c: its location, for logic_error
    }
    var kind: Kind
    var isConstant: Bool { kind.rawValue <= Kind.int.rawValue }
    var op: LogicOp = .log
    var iteration: LogicIteration = .map
    var checked = false
    var a: Int32 = 0
    var b: Int32 = -1
    var c: Int32 = -1
}

/// A compiled rule: instructions and what they refer to, in flat arrays.
final class LogicProgram: Sendable {
    let code: [LogicInstruction]
    let lists: [Int32]
    let constants: [JSON]
    let paths: [LogicPath]
    let locations: [String]
    /// Indices of `paths` the rule reads from its data, in order.
    let reads: [Int32]
    let root: Int32

    init(_ c: LogicCompiler, root: Int32) {
        code = c.code
        lists = c.lists
        constants = c.constants
        paths = c.paths
        locations = c.locations
        reads = c.reads
        self.root = root
    }
}

// MARK: - Operators

struct LogicOperator: Sendable {
    enum Kind: Sendable { case op(LogicOp), variable, root, branch, and, or, iterate(LogicIteration), reduce, object }
    var kind: Kind
    var min: Int
    var max: Int?
    /// Extras that refuse some values carry their location.
    var located = false
}

/// Operators by name, in an open-addressed table keyed by the name's bytes:
/// finding one costs no string hashing.
final class LogicOperatorTable: Sendable {
    static let shared = LogicOperatorTable(logicOperators)
    static let size = 128

    private let keys: [UInt64]  // 0: empty
    private let slotNames: [String]
    private let specs: [LogicOperator]
    let names: [String]

    init(_ operators: [String: LogicOperator]) {
        var keys = [UInt64](repeating: 0, count: LogicOperatorTable.size)
        var slotNames = [String](repeating: "", count: LogicOperatorTable.size)
        var specs = [LogicOperator](repeating: LogicOperator(kind: .branch, min: 0, max: nil), count: LogicOperatorTable.size)
        for (name, spec) in operators {
            let key = LogicOperatorTable.key(name)
            var i = LogicOperatorTable.slot(key)
            while keys[i] != 0 { i = (i + 1) % LogicOperatorTable.size }
            (keys[i], slotNames[i], specs[i]) = (key, name, spec)
        }
        self.keys = keys
        self.slotNames = slotNames
        self.specs = specs
        names = operators.keys.sorted()
    }

    /// Up to 8 bytes of the name, its length mixed in; never 0 for a name.
    @inline(__always)
    static func key(_ name: String) -> UInt64 {
        var key: UInt64 = 0
        var n: UInt64 = 0
        for byte in name.utf8 {
            if n < 8 { key |= UInt64(byte) << (8 * n) }
            n &+= 1
        }
        return (key ^ (n &* 0x9E37_79B9_7F4A_7C15)) | 1
    }

    @inline(__always)
    static func slot(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0xFF51_AFD7_ED55_8CCD) >> 57) }

    subscript(name: String) -> LogicOperator? {
        let key = LogicOperatorTable.key(name)
        var i = LogicOperatorTable.slot(key)
        while keys[i] != 0 {
            if keys[i] == key && slotNames[i] == name { return specs[i] }
            i = (i + 1) % LogicOperatorTable.size
        }
        return nil
    }
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

    /// An operator's arguments: its operand's elements, or the operand itself
    /// when that is no array (`{"var": "a"}` is `{"var": ["a"]}`).
    struct Arguments {
        let operand: JSON
        let list: [JSON]?
        let count: Int

        init(_ operand: JSON, none: Bool) {
            self.operand = operand
            if case .array(let a) = operand { list = a; count = a.count } else { list = nil; count = none ? 0 : 1 }
        }

        var wrapped: Bool { list == nil }
        subscript(i: Int) -> JSON { list?[i] ?? operand }
    }

    let roots: Set<String>?
    let base: String
    let firstOnly: Bool
    var code: [LogicInstruction] = []
    var lists: [Int32] = []
    var constants: [JSON] = []
    var paths: [LogicPath] = []
    var locations: [String] = []
    var reads: [Int32] = []
    var problems: [LogicProblem] = []
    var tokens: [Token] = []
    var depth = 0

    init(roots: Set<String>?, base: String, firstOnly: Bool) {
        self.roots = roots
        self.base = base
        self.firstOnly = firstOnly
        code.reserveCapacity(16)
        lists.reserveCapacity(16)
        tokens.reserveCapacity(16)
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

    mutating func problem(_ code: String, _ message: String) {
        guard !(firstOnly && !problems.isEmpty) else { return }
        problems.append(LogicProblem(code: code, message: message, at: pointer))
    }

    mutating func emit(_ instruction: LogicInstruction) -> Int32 {
        code.append(instruction)
        return Int32(code.count - 1)
    }

    mutating func constant(_ value: JSON) -> Int32 {
        switch value {
        case .null: return emit(LogicInstruction(kind: .null))
        case .bool(let b): return emit(LogicInstruction(kind: .bool, a: b ? 1 : 0))
        case .int(let i):
            return emit(LogicInstruction(kind: .int, a: Int32(truncatingIfNeeded: i), b: Int32(truncatingIfNeeded: i >> 32)))
        default:
            constants.append(value)
            return emit(LogicInstruction(kind: .literal, a: Int32(constants.count - 1)))
        }
    }

    /// Room for `count` instructions in `lists`, filled as they are compiled
    /// (theirs go after it): its start.
    mutating func slots(_ count: Int) -> Int {
        let start = lists.count
        lists.append(contentsOf: repeatElement(0, count: count))
        return start
    }

    mutating func compile(_ rule: JSON, _ scope: Scope) -> Int32 {
        switch rule {
        case .array(let items):
            guard enter() else { return constant(.null) }
            defer { depth -= 1 }
            let (codeMark, constantMark) = (code.count, constants.count)
            let start = slots(items.count)
            var constant = true
            for (i, item) in items.enumerated() {
                tokens.append(.index(i))
                let node = compile(item, scope)
                tokens.removeLast()
                if !code[Int(node)].isConstant { constant = false }
                lists[start + i] = node
            }
            if constant {
                // A value as it is: drop its elements' instructions.
                code.removeSubrange(codeMark...)
                constants.removeSubrange(constantMark...)
                lists.removeSubrange(start...)
                return self.constant(rule)
            }
            return emit(LogicInstruction(kind: .array, checked: scope.inReduce, a: Int32(start), b: Int32(items.count)))
        case .object(let o) where o.count == 1:
            guard enter() else { return constant(.null) }
            defer { depth -= 1 }
            let member = o.members[0]
            tokens.append(.key(member.key))
            defer { tokens.removeLast() }
            return compileOperator(member.key, member.value, scope)
        default:
            // Scalars, and objects of other sizes, are values as they are.
            return constant(rule)
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

    mutating func argument(_ args: Arguments, _ i: Int, _ scope: Scope) -> Int32 {
        if args.wrapped { return compile(args.operand, scope) }
        tokens.append(.index(i))
        defer { tokens.removeLast() }
        return compile(args[i], scope)
    }

    /// Compiles the arguments into a list: its start and count.
    mutating func arguments(_ args: Arguments, _ scope: Scope) -> (Int32, Int32) {
        let start = slots(args.count)
        for i in 0..<args.count { lists[start + i] = argument(args, i, scope) }
        return (Int32(start), Int32(args.count))
    }

    mutating func compileOperator(_ name: String, _ operand: JSON, _ scope: Scope) -> Int32 {
        guard let spec = LogicOperatorTable.shared[name] else {
            problem("unknown_operator", "unknown operator \"\(name)\"" + Suggestion.hint(name, among: LogicOperatorTable.shared.names))
            // Its arguments may hold problems too.
            _ = arguments(Arguments(operand, none: false), scope)
            return constant(.null)
        }
        if case .object = spec.kind, case .object(let members) = operand {
            return compileObject(members, scope)
        }
        // {"now": null} reads as {"now": []}.
        let args = Arguments(operand, none: spec.max == 0 && operand.isNull)
        if args.count < spec.min || spec.max.map({ args.count > $0 }) == true {
            problem("arity", "\"\(name)\" takes \(arity(spec)), not \(args.count)")
            _ = arguments(args, scope)
            return constant(.null)
        }
        switch spec.kind {
        case .variable:
            return compileVariable(args, scope, fromRoot: false)
        case .root:
            return compileVariable(args, scope, fromRoot: true)
        case .branch, .and, .or:
            let kind: LogicInstruction.Kind
            switch spec.kind {
            case .branch: kind = .branch
            case .and: kind = .and
            default: kind = .or
            }
            let (start, count) = arguments(args, scope)
            return emit(LogicInstruction(kind: kind, a: start, b: count))
        case .iterate(let iteration):
            let list = argument(args, 0, scope)
            let body = argument(args, 1, Scope(top: false, inReduce: scope.inReduce))
            return emit(LogicInstruction(kind: .iterate, iteration: iteration, checked: scope.inReduce, a: list, b: body))
        case .reduce:
            let list = argument(args, 0, scope)
            let body = argument(args, 1, Scope(top: false, inReduce: true))
            let initial = args.count > 2 ? argument(args, 2, scope) : -1
            return emit(LogicInstruction(kind: .reduce, a: list, b: body, c: initial))
        case .object:
            guard args.count % 2 == 0 else {
                problem("arity", "\"object\" takes an object of rules, or keys and values in pairs: an even count, not \(args.count)")
                return constant(.null)
            }
            let (start, count) = arguments(args, scope)
            return emit(LogicInstruction(kind: .object, checked: scope.inReduce, a: start, b: count))
        case .op(let op):
            if scope.top { noteReads(op, args) }
            if spec.located {
                let at = pointer
                let (start, count) = arguments(args, scope)
                locations.append(at)
                return emit(LogicInstruction(kind: .extra, op: op, checked: scope.inReduce, a: start, b: count,
                                             c: Int32(locations.count - 1)))
            }
            switch args.count {
            case 1 where op != .merge:
                return emit(LogicInstruction(kind: .unary, op: op, a: argument(args, 0, scope)))
            case 2 where op != .merge:
                let a = argument(args, 0, scope)
                return emit(LogicInstruction(kind: .binary, op: op, a: a, b: argument(args, 1, scope)))
            default:
                let (start, count) = arguments(args, scope)
                return emit(LogicInstruction(kind: .nary, op: op, checked: scope.inReduce, a: start, b: count))
            }
        }
    }

    func arity(_ spec: LogicOperator) -> String {
        func n(_ k: Int) -> String { k == 1 ? "1 argument" : "\(k) arguments" }
        guard let max = spec.max else { return "at least " + n(spec.min) }
        if max == spec.min { return max == 0 ? "no arguments" : n(max) }
        return max == spec.min + 1 ? "\(spec.min) or " + n(max) : "\(spec.min) to " + n(max)
    }

    mutating func compileObject(_ members: JSONObject, _ scope: Scope) -> Int32 {
        let start = slots(members.count * 2)
        for (i, m) in members.members.enumerated() {
            tokens.append(.key(m.key))
            lists[start + 2 * i] = constant(.string(m.key))
            lists[start + 2 * i + 1] = compile(m.value, scope)
            tokens.removeLast()
        }
        return emit(LogicInstruction(kind: .object, checked: scope.inReduce, a: Int32(start), b: Int32(members.count * 2)))
    }

    mutating func compileVariable(_ args: Arguments, _ scope: Scope, fromRoot: Bool) -> Int32 {
        let fallback = args.count > 1 ? argument(args, 1, scope) : -1
        let spec = args.count > 0 ? args[0] : .null
        func located<T>(_ body: (inout LogicCompiler) -> T) -> T {
            if args.wrapped { return body(&self) }
            tokens.append(.index(0))
            defer { tokens.removeLast() }
            return body(&self)
        }
        func dynamic() -> Int32 {
            let node = located { $0.compile(spec, scope) }
            return emit(LogicInstruction(kind: fromRoot ? .dynamicRootPath : .dynamicPath, a: node, b: fallback))
        }
        let path: LogicPath
        switch spec {
        case .null: path = LogicPath([])
        case .string(let s): path = LogicPath(dotted: s)
        case .int, .uint, .double: path = LogicPath(dotted: LogicMachine.numberText(spec))
        case .array(let items) where items.allSatisfy({ $0.isNumber || $0.stringValue != nil }):
            path = LogicPath(items.map { LogicPath.Segment($0.stringValue ?? LogicMachine.numberText($0)) })
        case .array(let items) where items.contains(where: { $0.objectValue?.count == 1 }):
            return dynamic()  // segments computed by rules
        case .object(let o) where o.count == 1:
            return dynamic()
        default:
            located { $0.problem("bad_path", "a path is a string, a number, or an array of strings and numbers; not \(spec.kindName)") }
            return constant(.null)
        }
        paths.append(path)
        let index = Int32(paths.count - 1)
        if fromRoot || scope.top { located { $0.read(index) } }
        return emit(LogicInstruction(kind: fromRoot ? .rootPath : .path, a: index, b: fallback))
    }

    /// Records that the path `paths[index]` is read from the rule's data, and checks its root.
    mutating func read(_ index: Int32) {
        let path = paths[Int(index)]
        guard let first = path.segments.first else { return }
        if let roots, !roots.contains(first.key) {
            let known = roots.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            problem("unknown_root", "\"\(path.dotted)\" starts with \"\(first.key)\", not one of the roots: \(known)"
                + Suggestion.hint(first.key, among: roots))
        }
        reads.append(index)
    }

    mutating func read(_ path: LogicPath) {
        paths.append(path)
        read(Int32(paths.count - 1))
    }

    /// What `missing`, `missing_some` and `now` read, where it is written in the rule.
    mutating func noteReads(_ op: LogicOp, _ args: Arguments) {
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
            if args.count > 0, case .array = args[0] { keys(args[0], args.wrapped ? nil : .index(0)) }
            else {
                for i in 0..<args.count where args[i].isNumber || args[i].stringValue != nil {
                    keys(args[i], args.wrapped ? nil : .index(i))
                }
            }
        case .missingSome:
            keys(args[1], .index(1))
        case .now:
            read(LogicPath(dotted: "env.now"))
        default:
            break
        }
    }
}
