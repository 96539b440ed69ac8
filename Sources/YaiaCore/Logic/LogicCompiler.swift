import YaiaKit

// The compiler: a rule's JSON checked and lowered into a LogicProgram.

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
        let list: JSONArray?
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
    /// Whether the rule reads from its data what `reads` cannot list: a
    /// computed path, the whole data, `missing`'s keys.
    var opaqueReads = false
    /// Reads of the rule's whole data so far (`root`, `now`): an iteration
    /// body that makes none depends on its element only.
    var rootReads = 0
    /// Reads of an iteration body's element (or a reduce body's current and
    /// accumulator) so far: an operator in a body that makes none is
    /// evaluated once (LogicOnce).
    var elementReads = 0
    var onceSlots = 0
    /// Whether `in` of a `lower` is fused (LogicSearch): off only to time
    /// and test the general path.
    var fuses = true
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
            let before = elementReads
            let node = compileOperator(member.key, member.value, scope)
            return scope.top || elementReads != before ? node : once(node)
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
            let before = rootReads
            let body = argument(args, 1, Scope(top: false, inReduce: scope.inReduce))
            return emit(LogicInstruction(kind: .iterate, iteration: iteration, checked: scope.inReduce, a: list, b: body,
                                         c: rootReads == before ? 1 : -1))
        case .update:
            // The list, the key's field and value, then the body, whose data is the element.
            let at = pointer
            let start = slots(3)
            for i in 0..<3 { lists[start + i] = argument(args, i, scope) }
            let body = argument(args, 3, Scope(top: false, inReduce: scope.inReduce))
            locations.append(at)
            return emit(LogicInstruction(kind: .update, checked: scope.inReduce, a: Int32(start), b: body, c: Int32(locations.count - 1)))
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
            if scope.top { noteReads(op, args) } else if op == .missing || op == .missingSome { elementReads += 1 }
            if op == .now { rootReads += 1 }
            if spec.located {
                let at = pointer
                let (start, count) = arguments(args, scope)
                // `length` of a `filter` counts: no list built (LogicLists).
                if op == .length, count == 1, case let n = Int(lists[Int(start)]),
                   code[n].kind == .iterate, code[n].iteration == .filter {
                    code[n].iteration = .count
                    return Int32(n)
                }
                locations.append(at)
                return emit(LogicInstruction(kind: .extra, op: op, checked: scope.inReduce, a: start, b: count,
                                             c: Int32(locations.count - 1)))
            }
            switch args.count {
            case 1 where op != .merge:
                return emit(LogicInstruction(kind: .unary, op: op, a: argument(args, 0, scope)))
            case 2 where op != .merge:
                let a = argument(args, 0, scope)
                let b = argument(args, 1, scope)
                if op == .in, let fused = fusedSearch(a, b) { return emit(fused) }
                return emit(LogicInstruction(kind: .binary, op: op, a: a, b: b))
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
        if fromRoot { rootReads += 1 } else if !scope.top { elementReads += 1 }
        func dynamic() -> Int32 {
            if fromRoot || scope.top { opaqueReads = true }
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
        if fromRoot || scope.top {
            if path.segments.isEmpty { opaqueReads = true }
            located { $0.read(index) }
        }
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
        case .missing, .missingSome: opaqueReads = true
        default: break
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
