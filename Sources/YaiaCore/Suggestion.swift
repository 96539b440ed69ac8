/// "Did you mean" for names people type: config keys, scene types, ops.
public enum Suggestion {
    /// The candidate closest to `word` by edit distance, if it is close enough
    /// to be a plausible typo (at most a third of the word's length, at least one edit).
    public static func nearest<S: Sequence<String>>(_ word: String, among candidates: S) -> String? {
        let w = Array(word.utf8)
        // Long inputs are not typos of short names; bound the work too.
        guard !w.isEmpty, w.count <= 256 else { return nil }
        let budget = max(1, w.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let c = Array(candidate.utf8)
            guard abs(c.count - w.count) <= budget else { continue }
            let d = distance(w, c)
            if d <= budget, d < (best?.distance ?? Int.max) || (d == best?.distance && candidate < (best?.name ?? "")) {
                best = (candidate, d)
            }
        }
        return best?.name
    }

    /// `; did you mean "NAME"?` when a candidate is near, else "".
    public static func hint<S: Sequence<String>>(_ word: String, among candidates: S) -> String {
        nearest(word, among: candidates).map { "; did you mean \"\($0)\"?" } ?? ""
    }

    /// Edit distance over bytes, counting a swap of neighbours as one edit
    /// (optimal string alignment), the typo people make most.
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var older = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], older[j - 2] + 1)
                }
            }
            (older, previous, current) = (previous, current, older)
        }
        return previous[b.count]
    }
}
