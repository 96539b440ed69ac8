// The operators by name: each one's kind and arity, in a table searched without hashing strings.

struct LogicOperator: Sendable {
    enum Kind: Sendable { case op(LogicOp), variable, root, branch, and, or, iterate(LogicIteration), reduce, update, object }
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
        "update": LogicOperator(kind: .update, min: 4, max: 4, located: true),
        "set": op(.set, 3, 3, located: true),
        "find": LogicOperator(kind: .iterate(.find), min: 2, max: 2),
        "object": LogicOperator(kind: .object, min: 0, max: nil),
    ]
}()
