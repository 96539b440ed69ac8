/// How deeply values nest, counted as the parser counts: a scalar is 0
/// levels, an array or object one more than its deepest element.
extension JSON {
    /// The nesting of this value, or `limit + 1` as soon as it is found to
    /// be deeper than `limit`: the walk never goes more than `limit + 1`
    /// levels down, so it is safe on any value, however deep.
    public func depth(upTo limit: Int) -> Int {
        switch self {
        case .array(let a):
            guard limit > 0 else { return 1 }
            var deepest = 0
            for x in a {
                let d = x.depth(upTo: limit - 1)
                if d >= limit { return limit + 1 }
                deepest = Swift.max(deepest, d)
            }
            return deepest + 1
        case .object(let o):
            guard limit > 0 else { return 1 }
            var deepest = 0
            for m in o.members {
                let d = m.value.depth(upTo: limit - 1)
                if d >= limit { return limit + 1 }
                deepest = Swift.max(deepest, d)
            }
            return deepest + 1
        default:
            return 0
        }
    }

    /// Whether this value nests at most `limit` levels.
    public func nests(within limit: Int) -> Bool { depth(upTo: limit) <= limit }
}
