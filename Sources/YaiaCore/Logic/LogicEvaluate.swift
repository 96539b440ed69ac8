import YaiaKit

/// Why an evaluation stopped.
enum LogicStop: Error {
    case budget
    case nestedTooDeep
    case failure(String, at: String)

    func yaiaError(_ budget: LogicBudget, at: String) -> YaiaError {
        switch self {
        case .budget:
            return YaiaError(.logicBudgetExceeded, budget.exceeded, at: at)
        case .nestedTooDeep:
            return YaiaError(.logicBudgetExceeded, "a value built in reduce nests deeper than \(LogicRule.maxValueDepth) levels", at: at)
        case .failure(let message, let at):
            return YaiaError(.logicError, message, at: at)
        }
    }
}

/// What `var` reads: the data, or a reduce body's current element and accumulator
/// (an object {"current", "accumulator"} in JSON Logic, never built unless read whole).
enum LogicScope {
    case data(JSON)
    case reduce(current: JSON, accumulator: JSON)
}

/// One evaluation: the program, the steps left and the data the rule was given.
struct LogicMachine {
    var steps: Int
    /// The budget as the evaluation found it; `steps` holds what is left.
    var account: LogicBudget
    let data: JSON
    let program: LogicProgram
    /// The values of `once` instructions evaluated so far (LogicOnce).
    var onceValues: [JSON?] = []

    init(_ program: LogicProgram, data: JSON, budget: LogicBudget) {
        self.program = program
        self.data = data
        account = budget
        steps = budget.left
    }

    /// The budget with the steps taken.
    var budget: LogicBudget {
        var b = account
        b.left = steps
        return b
    }

    @inline(__always)
    mutating func charge(_ n: Int) throws(LogicStop) {
        steps -= n
        if steps < 0 { try overdraw() }
    }

    /// The base is spent: the data's share comes in, once.
    @inline(never)
    mutating func overdraw() throws(LogicStop) {
        account.left = steps
        while account.left < 0 {
            guard account.overdraw(data) else { throw .budget }
        }
        steps = account.left
    }

    @inline(__always)
    func list(_ start: Int32, _ count: Int32) -> ArraySlice<Int32> {
        program.lists[Int(start)..<Int(start + count)]
    }

    mutating func evalList(_ ins: LogicInstruction, _ scope: LogicScope) throws(LogicStop) -> [JSON] {
        var args: [JSON] = []
        args.reserveCapacity(Int(ins.b))
        for n in list(ins.a, ins.b) { args.append(try eval(n, scope)) }
        return args
    }

    mutating func eval(_ node: Int32, _ scope: LogicScope) throws(LogicStop) -> JSON {
        try charge(1)
        let ins = program.code[Int(node)]
        switch ins.kind {
        case .literal:
            return program.constants[Int(ins.a)]
        case .null:
            return .null
        case .bool:
            return .bool(ins.a != 0)
        case .int:
            return .int(Int64(UInt32(bitPattern: ins.a)) | Int64(ins.b) << 32)
        case .path:
            if let value = try lookup(program.paths[Int(ins.a)], in: scope) { return value }
            return ins.b < 0 ? .null : try eval(ins.b, scope)
        case .binary:
            let x = try eval(ins.a, scope)
            let y = try eval(ins.b, scope)
            return try binary(ins.op, x, y, scope)
        case .unary:
            return try unary(ins.op, try eval(ins.a, scope), scope)
        case .branch:
            var i = ins.a
            let end = ins.a + ins.b
            while i + 1 < end {
                if LogicMachine.truthy(try eval(program.lists[Int(i)], scope)) { return try eval(program.lists[Int(i + 1)], scope) }
                i += 2
            }
            return i < end ? try eval(program.lists[Int(i)], scope) : .null
        case .and, .or:
            let wanted = ins.kind == .or
            var value = JSON.null
            for n in list(ins.a, ins.b) {
                value = try eval(n, scope)
                if LogicMachine.truthy(value) == wanted { return value }
            }
            return value
        case .array:
            var out: [JSON] = []
            out.reserveCapacity(Int(ins.b))
            for n in list(ins.a, ins.b) {
                let value = try eval(n, scope)
                if ins.checked { try checkNesting(value) }
                out.append(value)
            }
            return .array(out)
        case .dynamicPath, .dynamicRootPath:
            let spec = try eval(ins.a, scope)
            let base = ins.kind == .dynamicPath ? scope : .data(data)
            if let value = try lookup(try path(spec), in: base) { return value }
            return ins.b < 0 ? .null : try eval(ins.b, scope)
        case .rootPath:
            if let value = try lookup(program.paths[Int(ins.a)], in: .data(data)) { return value }
            return ins.b < 0 ? .null : try eval(ins.b, scope)
        case .iterate:
            if ins.iteration == .count { return try count(ins, try eval(ins.a, scope)) }
            return try iterate(ins.iteration, try eval(ins.a, scope), ins.b, checked: ins.checked)
        case .reduce:
            let list = try eval(ins.a, scope)
            var accumulator = ins.c < 0 ? .null : try eval(ins.c, scope)
            guard case .array(let items) = list else { return accumulator }
            for item in items {
                try charge(1)
                accumulator = try eval(ins.b, .reduce(current: item, accumulator: accumulator))
            }
            return accumulator
        case .update:
            return try update(ins, scope)
        case .once:
            return try once(ins, scope)
        case .object:
            var members: [JSONObject.Member] = []
            members.reserveCapacity(Int(ins.b) / 2)
            var i = ins.a
            let end = ins.a + ins.b
            while i + 1 < end {
                let key = try eval(program.lists[Int(i)], scope)
                let value = try eval(program.lists[Int(i + 1)], scope)
                if ins.checked { try checkNesting(value) }
                members.append(.init(key: try text(key), value: value))
                i += 2
            }
            return .object(JSONObject(members: members))
        case .nary:
            return try nary(ins.op, try evalList(ins, scope), scope, checked: ins.checked)
        case .extra:
            return try extra(ins.op, try evalList(ins, scope), at: program.locations[Int(ins.c)], checked: ins.checked)
        }
    }

    mutating func iterate(_ kind: LogicIteration, _ list: JSON, _ body: Int32, checked: Bool) throws(LogicStop) -> JSON {
        guard case .array(let items) = list else {
            switch kind {
            case .map, .filter: return .array([])
            case .count: return 0
            case .all, .some: return false
            case .none: return true
            case .find: return .null
            }
        }
        switch kind {
        case .map:
            var out: [JSON] = []
            out.reserveCapacity(items.count)
            for item in items {
                try charge(1)
                let value = try eval(body, .data(item))
                if checked { try checkNesting(value) }
                out.append(value)
            }
            return .array(out)
        case .filter:
            var out: [JSON] = []
            for item in items {
                try charge(1)
                if LogicMachine.truthy(try eval(body, .data(item))) { out.append(item) }
            }
            return .array(out)
        case .all:
            // All of nothing is false in JSON Logic.
            if items.isEmpty { return false }
            for item in items {
                try charge(1)
                if !LogicMachine.truthy(try eval(body, .data(item))) { return false }
            }
            return true
        case .none, .some:
            for item in items {
                try charge(1)
                if LogicMachine.truthy(try eval(body, .data(item))) { return .bool(kind == .some) }
            }
            return .bool(kind == .none)
        case .find:
            for item in items {
                try charge(1)
                if LogicMachine.truthy(try eval(body, .data(item))) { return item }
            }
            return .null
        case .count:
            var n = 0
            for item in items {
                try charge(1)
                if LogicMachine.truthy(try eval(body, .data(item))) { n += 1 }
            }
            return .int(Int64(n))
        }
    }

    // MARK: - Paths

    /// The value at `path`, or nil where JavaScript would find `undefined`
    /// (a null found is a value: the default does not replace it).
    mutating func lookup(_ path: LogicPath, in scope: LogicScope) throws(LogicStop) -> JSON? {
        var value: JSON
        var start = 0
        switch scope {
        case .data(let d):
            value = d
        case .reduce(let current, let accumulator):
            switch path.head {
            case .current: value = current
            case .accumulator: value = accumulator
            case .other:
                guard path.segments.isEmpty else { return nil }
                return .object(JSONObject(members: [.init(key: "accumulator", value: accumulator), .init(key: "current", value: current)]))
            }
            start = 1
        }
        let segments = path.segments
        var i = start
        while i < segments.count {
            guard let next = try member(value, segments[i]) else { return nil }
            value = next
            i += 1
        }
        return value
    }

    @inline(__always)
    mutating func member(_ value: JSON, _ segment: LogicPath.Segment) throws(LogicStop) -> JSON? {
        switch value {
        case .object(let o):
            return LogicMachine.member(o, segment.key)
        case .array(let a):
            if let i = segment.index { return i < a.count ? a[i] : nil }
            return segment.key == "length" ? .int(Int64(a.count)) : nil
        case .string(let s):
            try charge(s.utf8.count >> 7)
            if let i = segment.index {
                var it = s.unicodeScalars.makeIterator()
                var k = 0
                while let u = it.next() {
                    if k == i { return .string(String(u)) }
                    k += 1
                }
                return nil
            }
            return segment.key == "length" ? .int(Int64(s.unicodeScalars.count)) : nil
        default:
            return nil
        }
    }

    /// `o[key]`. Small objects, such as a list's items read once per
    /// element, are scanned instead of searched: a key of another length
    /// costs no comparison.
    @inline(__always)
    static func member(_ o: JSONObject, _ key: String) -> JSON? {
        guard o.count <= 8 else { return o[key] }
        let n = key.utf8.count
        for m in o.members where m.key.utf8.count == n && compareKeys(m.key, key) == 0 { return m.value }
        return nil
    }

    /// A path computed while evaluating, read as `var` reads its argument.
    mutating func path(_ spec: JSON) throws(LogicStop) -> LogicPath {
        switch spec {
        case .null: return LogicPath([])
        case .string(let s):
            try charge(s.utf8.count >> 7)
            return LogicPath(dotted: s)
        case .int, .uint, .double: return LogicPath(dotted: LogicMachine.numberText(spec))
        case .bool(let b): return LogicPath([.init(b ? "true" : "false")])
        case .array(let items):
            try charge(items.count >> 4)
            var segments: [LogicPath.Segment] = []
            for item in items {
                switch item {
                case .string(let s): segments.append(.init(s))
                case .int, .uint, .double: segments.append(.init(LogicMachine.numberText(item)))
                // No key names this: a path nothing is found at.
                default: return LogicPath([.init("[object Object]")])
                }
            }
            return LogicPath(segments)
        case .object:
            return LogicPath([.init("[object Object]")])
        }
    }

    // MARK: - Sizes

    enum Walk { case fits, tooDeep, tooBig }

    /// Walks `value` counting a unit per value and per 8 bytes of string,
    /// stopping past `limit` units or `levels` levels of nesting.
    static func walk(_ value: JSON, levels: Int, units: inout Int, limit: Int) -> Walk {
        var lowest = levels
        return walk(value, levels: levels, units: &units, limit: limit, lowest: &lowest)
    }

    /// `walk`, keeping in `lowest` the fewest levels left it reached: the
    /// value nests `levels - lowest` levels.
    static func walk(_ value: JSON, levels: Int, units: inout Int, limit: Int, lowest: inout Int) -> Walk {
        switch value {
        case .string(let s):
            units += 1 + s.utf8.count >> 3
        case .array(let a) where a.isTree:
            // A big array's tree remembers its size: a list a change left
            // alone, or the parts of it that it left alone, are not walked again.
            switch a.size(levels: levels, limit: limit - units) {
            case .fits(let s):
                units += s.units
                lowest = Swift.min(lowest, levels - s.nest)
            case .tooDeep: return .tooDeep
            case .tooBig:
                units = limit
                return .tooBig
            }
        case .array(let a):
            guard levels > 0 else { return .tooDeep }
            units += 1
            lowest = Swift.min(lowest, levels - 1)
            for x in a {
                switch x {
                case .array, .object, .string:
                    let w = walk(x, levels: levels - 1, units: &units, limit: limit, lowest: &lowest)
                    if w != .fits { return w }
                default:
                    units += 1
                    if units > limit { return .tooBig }
                }
            }
        case .object(let o):
            guard levels > 0 else { return .tooDeep }
            units += 1
            lowest = Swift.min(lowest, levels - 1)
            for m in o.members {
                units += 1 + m.key.utf8.count >> 3
                switch m.value {
                case .array, .object, .string:
                    let w = walk(m.value, levels: levels - 1, units: &units, limit: limit, lowest: &lowest)
                    if w != .fits { return w }
                default:
                    units += 1
                }
            }
        default:
            units += 1
        }
        return units > limit ? .tooBig : .fits
    }

    /// The steps left in walk units (16 a step).
    var unitsLeft: Int { steps > Int.max / 16 ? Int.max : steps * 16 }

    /// Units a result may be written out in: the steps left (and the
    /// data's share, counted here if the base would not do), at most
    /// `LogicBudget.resultUnits`.
    var resultLimit: Int {
        Swift.min(unitsLeft, account.resultUnits)
    }

    /// Inside a reduce body, what an operator wraps in a new array or object
    /// may have come back through the accumulator: bound its nesting (and
    /// pay for looking).
    mutating func checkNesting(_ value: JSON) throws(LogicStop) {
        switch value {
        case .array, .object: break
        default: return
        }
        var units = 0
        switch LogicMachine.walk(value, levels: LogicRule.maxValueDepth - 1, units: &units, limit: unitsLeft) {
        case .fits: try charge(units >> 4)
        case .tooDeep: throw .nestedTooDeep
        case .tooBig: throw .budget
        }
    }

    /// A result may share structure many times over (the same data read
    /// often): its written size is paid for, a step per 16 values or 128
    /// bytes of string.
    mutating func chargeResult(_ value: JSON) throws(LogicStop) {
        account.resultDepth = 0
        switch value {
        case .array, .object, .string: break
        default: return
        }
        var units = 0
        var lowest = Int.max
        var walked = LogicMachine.walk(value, levels: Int.max, units: &units, limit: resultLimit, lowest: &lowest)
        if walked == .tooBig, !account.counted, account.perUnit > 0 {
            // The base does not pay for it, or it is more than twice the
            // data counted so far: with the whole data's share it may fit.
            account.left = steps
            _ = account.overdraw(data, whole: true)
            steps = account.left
            units = 0
            lowest = Int.max
            walked = LogicMachine.walk(value, levels: Int.max, units: &units, limit: resultLimit, lowest: &lowest)
        }
        switch walked {
        case .fits:
            try charge(units >> 4)
            account.resultDepth = Int.max - lowest
        case .tooDeep, .tooBig: throw .budget
        }
    }
}
