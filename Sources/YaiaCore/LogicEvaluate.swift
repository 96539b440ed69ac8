/// Why an evaluation stopped.
enum LogicStop: Error {
    case budget
    case nestedTooDeep
    case failure(String, at: String)

    func yaiaError(budget: Int) -> YaiaError {
        switch self {
        case .budget:
            return YaiaError(.logicBudgetExceeded, "the rule took more than its budget of \(budget) steps")
        case .nestedTooDeep:
            return YaiaError(.logicBudgetExceeded, "a value built in reduce nests deeper than \(LogicRule.maxValueDepth) levels")
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

/// One evaluation: the steps left and the data the rule was given.
struct LogicMachine {
    var steps: Int
    let data: JSON

    init(data: JSON, budget: Int) {
        self.data = data
        steps = budget
    }

    @inline(__always)
    mutating func charge(_ n: Int) throws(LogicStop) {
        steps -= n
        if steps < 0 { throw .budget }
    }

    mutating func eval(_ node: LogicNode, _ scope: LogicScope) throws(LogicStop) -> JSON {
        try charge(1)
        switch node {
        case .literal(let value):
            return value
        case .path(let path, let fallback):
            if let value = LogicMachine.lookup(path, in: scope) { return value }
            guard let fallback else { return .null }
            return try eval(fallback, scope)
        case .binary(let op, let a, let b):
            let x = try eval(a, scope)
            let y = try eval(b, scope)
            return try binary(op, x, y, scope)
        case .unary(let op, let a):
            return try unary(op, try eval(a, scope), scope)
        case .branch(let nodes):
            var i = 0
            while i + 1 < nodes.count {
                if LogicMachine.truthy(try eval(nodes[i], scope)) { return try eval(nodes[i + 1], scope) }
                i += 2
            }
            return i < nodes.count ? try eval(nodes[i], scope) : .null
        case .and(let nodes):
            var value = JSON.null
            for n in nodes {
                value = try eval(n, scope)
                if !LogicMachine.truthy(value) { return value }
            }
            return value
        case .or(let nodes):
            var value = JSON.null
            for n in nodes {
                value = try eval(n, scope)
                if LogicMachine.truthy(value) { return value }
            }
            return value
        case .array(let nodes, let checked):
            var out: [JSON] = []
            out.reserveCapacity(nodes.count)
            for n in nodes {
                let value = try eval(n, scope)
                if checked { try checkNesting(value) }
                out.append(value)
            }
            return .array(out)
        case .dynamicPath(let pathNode, let fallback):
            let spec = try eval(pathNode, scope)
            if let value = LogicMachine.lookup(LogicMachine.path(spec), in: scope) { return value }
            guard let fallback else { return .null }
            return try eval(fallback, scope)
        case .rootPath(let path, let fallback):
            if let value = LogicMachine.lookup(path, in: .data(data)) { return value }
            guard let fallback else { return .null }
            return try eval(fallback, scope)
        case .dynamicRootPath(let pathNode, let fallback):
            let spec = try eval(pathNode, scope)
            if let value = LogicMachine.lookup(LogicMachine.path(spec), in: .data(data)) { return value }
            guard let fallback else { return .null }
            return try eval(fallback, scope)
        case .iterate(let kind, let listNode, let body, let checked):
            return try iterate(kind, try eval(listNode, scope), body, checked: checked)
        case .reduce(let listNode, let body, let initial):
            let list = try eval(listNode, scope)
            var accumulator = try initial.map { (n) throws(LogicStop) in try eval(n, scope) } ?? .null
            guard case .array(let items) = list else { return accumulator }
            for item in items {
                try charge(1)
                accumulator = try eval(body, .reduce(current: item, accumulator: accumulator))
            }
            return accumulator
        case .object(let nodes, let checked):
            var members: [JSONObject.Member] = []
            members.reserveCapacity(nodes.count / 2)
            var i = 0
            while i + 1 < nodes.count {
                let key = try eval(nodes[i], scope)
                let value = try eval(nodes[i + 1], scope)
                if checked { try checkNesting(value) }
                members.append(.init(key: try text(key), value: value))
                i += 2
            }
            return .object(JSONObject(members: members))
        case .nary(let op, let nodes, let checked):
            var args: [JSON] = []
            args.reserveCapacity(nodes.count)
            for n in nodes { args.append(try eval(n, scope)) }
            return try nary(op, args, scope, checked: checked)
        case .extra(let op, let nodes, let at, let checked):
            var args: [JSON] = []
            args.reserveCapacity(nodes.count)
            for n in nodes { args.append(try eval(n, scope)) }
            return try extra(op, args, at: at, checked: checked)
        }
    }

    mutating func iterate(_ kind: LogicIteration, _ list: JSON, _ body: LogicNode, checked: Bool) throws(LogicStop) -> JSON {
        guard case .array(let items) = list else {
            switch kind {
            case .map, .filter: return .array([])
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
        }
    }

    // MARK: - Paths

    /// The value at `path`, or nil where JavaScript would find `undefined`
    /// (a null found is a value: the default does not replace it).
    static func lookup(_ path: LogicPath, in scope: LogicScope) -> JSON? {
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
            guard let next = member(value, segments[i]) else { return nil }
            value = next
            i += 1
        }
        return value
    }

    @inline(__always)
    static func member(_ value: JSON, _ segment: LogicPath.Segment) -> JSON? {
        switch value {
        case .object(let o):
            return o[segment.key]
        case .array(let a):
            if let i = segment.index { return i < a.count ? a[i] : nil }
            return segment.key == "length" ? .int(Int64(a.count)) : nil
        case .string(let s):
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

    /// A path computed while evaluating, read as `var` reads its argument.
    static func path(_ spec: JSON) -> LogicPath {
        switch spec {
        case .null: return LogicPath([])
        case .string(let s): return LogicPath(dotted: s)
        case .int, .uint, .double: return LogicPath(dotted: numberText(spec))
        case .bool(let b): return LogicPath([.init(b ? "true" : "false")])
        case .array(let items):
            var segments: [LogicPath.Segment] = []
            for item in items {
                switch item {
                case .string(let s): segments.append(.init(s))
                case .int, .uint, .double: segments.append(.init(numberText(item)))
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
        switch value {
        case .string(let s):
            units += 1 + s.utf8.count >> 3
        case .array(let a):
            guard levels > 0 else { return .tooDeep }
            units += 1
            for x in a {
                switch x {
                case .array, .object, .string:
                    let w = walk(x, levels: levels - 1, units: &units, limit: limit)
                    if w != .fits { return w }
                default:
                    units += 1
                }
            }
        case .object(let o):
            guard levels > 0 else { return .tooDeep }
            units += 1
            for m in o.members {
                units += 1 + m.key.utf8.count >> 3
                switch m.value {
                case .array, .object, .string:
                    let w = walk(m.value, levels: levels - 1, units: &units, limit: limit)
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

    /// Inside a reduce body, what an operator wraps in a new array or object
    /// may have come back through the accumulator: bound its nesting (and
    /// pay for looking).
    mutating func checkNesting(_ value: JSON) throws(LogicStop) {
        switch value {
        case .array, .object: break
        default: return
        }
        var units = 0
        switch LogicMachine.walk(value, levels: LogicRule.maxValueDepth - 1, units: &units, limit: steps * 16) {
        case .fits: try charge(units >> 4)
        case .tooDeep: throw .nestedTooDeep
        case .tooBig: throw .budget
        }
    }

    /// A result may share structure many times over (the same data read
    /// often): its written size is paid for, a step per 16 values or 128
    /// bytes of string.
    mutating func chargeResult(_ value: JSON) throws(LogicStop) {
        switch value {
        case .array, .object, .string: break
        default: return
        }
        var units = 0
        switch LogicMachine.walk(value, levels: Int.max, units: &units, limit: steps * 16) {
        case .fits: try charge(units >> 4)
        case .tooDeep, .tooBig: throw .budget
        }
    }
}
