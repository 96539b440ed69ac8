import YaiaKit

/// Where two JSON values differ, one line per differing leaf, each naming its
/// JSON Pointer: `/email: expected "a@b.c", got ""` (`ScenarioDiff`'s walk and
/// its lines, which the exhaustive rules report too).
enum JSONDiff {
    /// Lines beyond this many are summarized: a diff of a large list should
    /// stay readable in a test report.
    static let maxLines = ScenarioDiff.maxDifferences

    static func lines(expected: JSON, actual: JSON) -> [String] {
        let all = ScenarioDiff.differences(expected: expected, actual: actual, limit: .max)
        var out = all.prefix(maxLines).map(\.line)
        let omitted = all.count - out.count
        if omitted > 0 { out.append("… and \(omitted) more difference\(omitted == 1 ? "" : "s")") }
        return out
    }

    static func render(_ value: JSON) -> String {
        ScenarioDiff.render(value)
    }
}
