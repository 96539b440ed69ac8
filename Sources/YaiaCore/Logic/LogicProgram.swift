import YaiaKit

// A rule's compiled form: split `var` paths, flat instructions and the program that holds them.

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
    /// `in` of a `lower`, fused by the compiler (LogicSearch); no name of its own.
    case inLowered
}

/// `count` is `length` of a `filter`, counted without building the list.
enum LogicIteration: UInt8, Sendable { case map, filter, all, none, some, find, count }

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
        case iterate          // `iteration` of list a with body b; c: 1 when b reads the element only
        case reduce           // list a, body b, initial c (or -1)
        case update           // list, field and key in lists[a..<a+3], body b; c: its location
        case object           // keys and values alternating in lists[a..<a+b]
        case unary            // `op` of a
        case binary           // `op` of a, b
        case nary             // `op` of lists[a..<a+b]
        case extra            // as nary; c: its location, for logic_error
        case once             // a, evaluated once per evaluation into slot b (LogicOnce)
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
    /// Whether it reads from its data more than `reads` lists.
    let opaqueReads: Bool
    /// Slots for the values of `once` instructions.
    let onceSlots: Int
    let root: Int32

    init(_ c: LogicCompiler, root: Int32) {
        code = c.code
        lists = c.lists
        constants = c.constants
        paths = c.paths
        locations = c.locations
        reads = c.reads
        opaqueReads = c.opaqueReads
        onceSlots = c.onceSlots
        self.root = root
    }
}
