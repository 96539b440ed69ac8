import YaiaKit

/// How deeply values nest, counted as the parser counts: a scalar is 0
/// levels, an array or object one more than its deepest element.
extension JSON {
    /// The nesting of this value, or `limit + 1` as soon as it is found to
    /// be deeper than `limit`: the walk never goes more than `limit + 1`
    /// levels down, so it is safe on any value, however deep.
    public func depth(upTo limit: Int) -> Int {
        switch self {
        case .array(let a): return Self.depth(of: a, upTo: limit)
        case .object(let o): return Self.depth(of: o.members.lazy.map(\.value), upTo: limit)
        default: return 0
        }
    }

    /// One more than the deepest of `children`, walked as `depth(upTo:)` walks.
    private static func depth(of children: some Sequence<JSON>, upTo limit: Int) -> Int {
        guard limit > 0 else { return 1 }
        var deepest = 0
        for child in children {
            let d = child.depth(upTo: limit - 1)
            if d >= limit { return limit + 1 }
            deepest = Swift.max(deepest, d)
        }
        return deepest + 1
    }

    /// Whether this value nests at most `limit` levels.
    public func nests(within limit: Int) -> Bool { depth(upTo: limit) <= limit }
}
