import YaiaKit

/// The pure parts of the simulator (docs/simulation.md): a seeded random
/// source, values drawn from a JSON Schema, and the shrinking of a failing
/// sequence. Each is deterministic: the same seed gives the same values on
/// every machine and every Swift version (no standard-library randomness).

/// SplitMix64: a small, fast generator whose whole state is one integer.
public struct SplitMix64: Sendable, Equatable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A whole number in `0..<n` (0 when `n` is not positive).
    public mutating func below(_ n: Int) -> Int {
        guard n > 1 else { return 0 }
        // Multiply-shift: the high bits of a 128-bit product, nearly unbiased.
        return Int(next().multipliedFullWidth(by: UInt64(n)).high)
    }

    /// A number in `0..<1`.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// One element of a non-empty list.
    public mutating func pick<T>(_ list: [T]) -> T? { list.isEmpty ? nil : list[below(list.count)] }

    /// A whole number in `lo...hi` (`lo` when the range is empty).
    public mutating func integer(_ lo: Int64, _ hi: Int64) -> Int64 {
        guard hi > lo else { return lo }
        let span = UInt64(bitPattern: hi &- lo)
        if span == .max { return Int64(bitPattern: next()) }
        return lo &+ Int64(bitPattern: next().multipliedFullWidth(by: span &+ 1).high)
    }
}

/// Draws JSON values that a JSON Schema accepts, for the subset scene
/// documents write (docs/scene-documents.md, "Type declarations"): `type`
/// (a name or a list), `const`, `enum`, `oneOf`/`anyOf`, `properties` with
/// `required`, `items`, `minLength`/`maxLength`, `minimum`/`maximum`.
/// Small values and the bounds themselves come often: they find bugs.
public struct ValueGenerator: Sendable {
    /// How deep objects and arrays nest before only required members (and
    /// empty arrays) are drawn.
    public var maxDepth: Int
    /// The longest array drawn (unless a schema says otherwise).
    public var maxItems: Int

    public init(maxDepth: Int = 4, maxItems: Int = 3) {
        self.maxDepth = maxDepth
        self.maxItems = maxItems
    }

    /// Numbers drawn without bounds stay within these.
    static let defaultLow: Int64 = -10
    static let defaultHigh: Int64 = 100
    /// The largest magnitude drawn: whole numbers JSON's doubles hold exactly.
    static let limit: Double = 9_007_199_254_740_991
    static let alphabet: [Character] = Array("abcxyz AZ019@._-é")

    public func value(_ schema: JSON, _ rng: inout SplitMix64, depth: Int = 0) -> JSON {
        guard case .object(let s) = schema else {
            // `true` or a malformed schema: anything; `false`: nothing fits, null is the least wrong.
            return schema == .bool(false) ? .null : any(&rng, depth: depth)
        }
        if let c = s["const"] { return c }
        if case .array(let values)? = s["enum"], let v = rng.pick(values.elements) { return v }
        for key in ["oneOf", "anyOf"] {
            if case .array(let options)? = s[key], let option = rng.pick(options.elements) { return value(option, &rng, depth: depth) }
        }
        var kinds: [String]
        switch s["type"] {
        case .string(let name)?: kinds = [name]
        case .array(let names)?: kinds = names.compactMap(\.stringValue)
        default: kinds = []
        }
        if kinds.isEmpty {
            if s["properties"] != nil || s["required"] != nil { kinds = ["object"] }
            else if s["items"] != nil { kinds = ["array"] }
            else { return any(&rng, depth: depth) }
        }
        switch rng.pick(kinds) ?? "null" {
        case "boolean": return .bool(rng.chance(0.5))
        case "integer": return .int(integer(s, &rng))
        case "number":
            if let low = s["minimum"]?.doubleValue, let high = s["maximum"]?.doubleValue, low.rounded(.up) > high.rounded(.down) {
                // No whole number lies within the bounds.
                return .double(low + (high - low) * rng.unit())
            }
            let whole = integer(s, &rng)
            guard rng.chance(0.5) else { return .int(whole) }
            // A fraction within the bounds: below the upper one, above the lower one.
            let low = s["minimum"]?.doubleValue ?? -Self.limit
            let high = s["maximum"]?.doubleValue ?? Self.limit
            let d = Double(whole) + (rng.chance(0.5) ? 0.5 : -0.5)
            return d >= low && d <= high ? .double(d) : .int(whole)
        case "string": return .string(string(s, &rng))
        case "array":
            guard depth < maxDepth, let items = s["items"] else { return .array([]) }
            let count = rng.below(maxItems + 1)
            return .array((0..<count).map { _ in value(items, &rng, depth: depth + 1) })
        case "object": return object(s, &rng, depth: depth)
        default: return .null
        }
    }

    func integer(_ s: JSONObject, _ rng: inout SplitMix64) -> Int64 {
        let minimum = s["minimum"]?.doubleValue.map { Swift.max(-Self.limit, Swift.min(Self.limit, $0.rounded(.up))) }
        let maximum = s["maximum"]?.doubleValue.map { Swift.max(-Self.limit, Swift.min(Self.limit, $0.rounded(.down))) }
        var low = minimum.map { Int64($0) } ?? Swift.min(Self.defaultLow, maximum.map { Int64($0) - 20 } ?? Self.defaultLow)
        var high = maximum.map { Int64($0) } ?? Swift.max(Self.defaultHigh, minimum.map { Int64($0) + 20 } ?? Self.defaultHigh)
        if high < low { (low, high) = (high, low) }
        // The bounds, and small numbers, a third of the time each.
        switch rng.below(6) {
        case 0: return low
        case 1: return high
        case 2, 3:
            let small = rng.integer(-3, 3)
            return small >= low && small <= high ? small : rng.integer(low, high)
        default: return rng.integer(low, high)
        }
    }

    func string(_ s: JSONObject, _ rng: inout SplitMix64) -> String {
        let minLength = s["minLength"]?.int64Value.map { Int(clamping: $0) } ?? 0
        let maxLength = s["maxLength"]?.int64Value.map { Int(clamping: $0) } ?? (minLength + 8)
        let low = Swift.max(0, Swift.min(minLength, 64))
        let high = Swift.max(low, Swift.min(maxLength, low + 16))
        let count = Int(rng.integer(Int64(low), Int64(high)))
        return String((0..<count).map { _ in Self.alphabet[rng.below(Self.alphabet.count)] })
    }

    func object(_ s: JSONObject, _ rng: inout SplitMix64, depth: Int) -> JSON {
        let required = s["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var out = JSONObject()
        if case .object(let properties)? = s["properties"] {
            for (key, schema) in properties where required.contains(key) || (depth < maxDepth && rng.chance(0.5)) {
                out[key] = value(schema, &rng, depth: depth + 1)
            }
        }
        for key in required where out[key] == nil { out[key] = depth < maxDepth ? any(&rng, depth: depth + 1) : .null }
        return .object(out)
    }

    /// A value of no declared type: a scalar, or (not too deep) a small list or object.
    func any(_ rng: inout SplitMix64, depth: Int) -> JSON {
        switch rng.below(depth < maxDepth ? 6 : 4) {
        case 0: return .null
        case 1: return .bool(rng.chance(0.5))
        case 2: return .int(rng.integer(-3, 10))
        case 3: return .string(string([:], &rng))
        case 4: return .array((0..<rng.below(3)).map { _ in any(&rng, depth: depth + 1) })
        default: return ["a": any(&rng, depth: depth + 1)]
        }
    }

    /// Simpler forms of `value`, simplest first: what a shrinker tries in
    /// its place. Each is smaller (fewer members, shorter, nearer to 0), so
    /// trying them again and again ends.
    public static func simpler(_ value: JSON) -> [JSON] {
        switch value {
        case .null: return []
        case .bool(let b): return b ? [.bool(false)] : []
        case .int(let i):
            guard i != 0 else { return [] }
            var out: [JSON] = [.int(0)]
            if i / 2 != 0 { out.append(.int(i / 2)) }
            if i > 0 { out.append(.int(i - 1)) } else { out.append(.int(i + 1)) }
            return unique(out, not: value)
        case .uint(let u): return u == 0 ? [] : unique([.int(0), .uint(u / 2), .uint(u - 1)], not: value)
        case .double(let d):
            guard d != 0, d.isFinite else { return [] }
            var out: [JSON] = [.int(0)]
            if d.rounded(.towardZero) != d { out.append(.int(Int64(d.rounded(.towardZero)))) }
            else if (d / 2).rounded(.towardZero) != 0 { out.append(.int(Int64((d / 2).rounded(.towardZero)))) }
            return unique(out, not: value)
        case .string(let s):
            guard !s.isEmpty else { return [] }
            var out: [JSON] = [.string("")]
            if s.count > 1 { out.append(.string(String(s.prefix(s.count / 2)))) }
            out.append(.string(String(s.dropLast())))
            if s.contains(where: { $0 != "a" }) { out.append(.string(String(repeating: "a", count: s.count))) }
            return unique(out, not: value)
        case .array(let items):
            guard !items.isEmpty else { return [] }
            var out: [JSON] = [.array([])]
            for i in items.indices {
                var fewer = items
                fewer.remove(at: i)
                out.append(.array(fewer))
            }
            for i in items.indices {
                for simpler in simpler(items[i]) {
                    var changed = items
                    changed[i] = simpler
                    out.append(.array(changed))
                }
            }
            return unique(out, not: value)
        case .object(let o):
            var out: [JSON] = []
            for key in o.keys {
                var fewer = o
                fewer[key] = nil
                out.append(.object(fewer))
            }
            for (key, member) in o {
                for simpler in simpler(member) {
                    var changed = o
                    changed[key] = simpler
                    out.append(.object(changed))
                }
            }
            return unique(out, not: value)
        }
    }

    private static func unique(_ list: [JSON], not original: JSON) -> [JSON] {
        var out: [JSON] = []
        for v in list where v != original && !out.contains(v) { out.append(v) }
        return out
    }
}

/// Shrinks a failing sequence of steps (delta debugging): first chunks of
/// steps are removed, halving the chunk size, then single steps, then each
/// step is replaced by simpler forms; a change is kept when the sequence
/// still fails. `fails` replays a candidate and answers the sequence that
/// fails (the candidate, or a prefix of it when it fails earlier), or nil
/// when the candidate does not fail. At most `budget` candidates are tried.
public struct Shrinker<Step> {
    public var budget: Int
    public private(set) var tried = 0

    public init(budget: Int = 2000) { self.budget = budget }

    public mutating func shrink(_ steps: [Step], simpler: (Step) -> [Step], fails: ([Step]) -> [Step]?) -> [Step] {
        var current = steps
        func attempt(_ candidate: [Step]) -> Bool {
            guard tried < budget else { return false }
            tried += 1
            guard let failing = fails(candidate) else { return false }
            current = failing
            return true
        }
        var changed = true
        while changed && tried < budget {
            changed = false
            // Chunks, from halves down to single steps.
            var chunks = 2
            while current.count >= 1 && tried < budget {
                let size = Swift.max(1, (current.count + chunks - 1) / chunks)
                var removed = false
                var start = 0
                while start < current.count {
                    var candidate = current
                    candidate.removeSubrange(start..<Swift.min(start + size, current.count))
                    if attempt(candidate) {
                        removed = true
                        changed = true
                    } else {
                        start += size
                    }
                }
                if removed { continue }
                if size == 1 { break }
                chunks = Swift.min(current.count, chunks * 2)
            }
            // Simpler steps, one at a time.
            var i = 0
            while i < current.count && tried < budget {
                var simplified = false
                for candidate in simpler(current[i]) {
                    var next = current
                    next[i] = candidate
                    if attempt(next) {
                        simplified = true
                        changed = true
                        break
                    }
                }
                // A simplified step may simplify further; a prefix may have cut it off.
                if !simplified || i >= current.count { i += 1 }
            }
        }
        return current
    }
}
