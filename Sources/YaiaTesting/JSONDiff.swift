import YaiaKit

/// Where two JSON values differ, one line per differing leaf, each naming its
/// JSON Pointer: `/email: expected "a@b.c", got ""`. Objects are compared
/// member by member and arrays element by element (`ScenarioDiff`'s walk), so
/// a failure points at the field that changed instead of printing two whole states.
enum JSONDiff {
    /// Lines beyond this many are summarized: a diff of a large list should
    /// stay readable in a test report.
    static let maxLines = 40
    /// Values are shortened to this many characters.
    static let maxValueLength = 240

    static func lines(expected: JSON, actual: JSON) -> [String] {
        let all = ScenarioDiff.differences(expected: expected, actual: actual, limit: .max)
        var out = all.prefix(maxLines).map { d in
            // What is absent is an element when its parent, on the side that has it, is an array.
            let parent = String(d.pointer[..<(d.pointer.lastIndex(of: "/") ?? d.pointer.startIndex)])
            let inArray: Bool
            if case .array? = ScenarioDiff.value(at: parent, in: d.expected == nil ? actual : expected) { inArray = true } else { inArray = false }
            let absent = inArray ? "no element" : "no member"
            return "\(d.pointer.isEmpty ? "(root)" : d.pointer): expected \(d.expected.map(render) ?? absent), got \(d.actual.map(render) ?? absent)"
        }
        let omitted = all.count - out.count
        if omitted > 0 { out.append("… and \(omitted) more difference\(omitted == 1 ? "" : "s")") }
        return out
    }

    static func render(_ value: JSON) -> String {
        ScenarioDiff.render(value, limit: maxValueLength)
    }
}
