/// Where two JSON values differ, one line per differing leaf, each naming its
/// JSON Pointer: `/email: expected "a@b.c", got ""`. Objects are compared
/// member by member and arrays element by element, so a failure points at
/// the field that changed instead of printing two whole states.
enum JSONDiff {
    /// Lines beyond this many are summarized: a diff of a large list should
    /// stay readable in a test report.
    static let maxLines = 40
    /// Values are shortened to this many characters.
    static let maxValueLength = 240

    static func lines(expected: JSON, actual: JSON) -> [String] {
        var out: [String] = []
        var omitted = 0
        walk(expected, actual, at: "", into: &out, omitted: &omitted)
        if omitted > 0 { out.append("… and \(omitted) more difference\(omitted == 1 ? "" : "s")") }
        return out
    }

    private static func walk(_ expected: JSON, _ actual: JSON, at pointer: String, into out: inout [String], omitted: inout Int) {
        switch (expected, actual) {
        case let (.object(e), .object(a)):
            // Members are kept sorted by the UTF-8 bytes of their keys: merge the two lists.
            let em = e.members, am = a.members
            var i = 0, j = 0
            while i < em.count || j < am.count {
                if j == am.count || (i < em.count && em[i].key.utf8.lexicographicallyPrecedes(am[j].key.utf8)) {
                    add(JSONPointer.appending(pointer, em[i].key), render(em[i].value), "no member", into: &out, omitted: &omitted)
                    i += 1
                } else if i == em.count || am[j].key.utf8.lexicographicallyPrecedes(em[i].key.utf8) {
                    add(JSONPointer.appending(pointer, am[j].key), "no member", render(am[j].value), into: &out, omitted: &omitted)
                    j += 1
                } else {
                    walk(em[i].value, am[j].value, at: JSONPointer.appending(pointer, em[i].key), into: &out, omitted: &omitted)
                    i += 1
                    j += 1
                }
            }
        case let (.array(e), .array(a)):
            for index in 0..<max(e.count, a.count) {
                let p = JSONPointer.appending(pointer, index)
                if index >= a.count {
                    add(p, render(e[index]), "no element", into: &out, omitted: &omitted)
                } else if index >= e.count {
                    add(p, "no element", render(a[index]), into: &out, omitted: &omitted)
                } else {
                    walk(e[index], a[index], at: p, into: &out, omitted: &omitted)
                }
            }
        default:
            if expected != actual { add(pointer, render(expected), render(actual), into: &out, omitted: &omitted) }
        }
    }

    private static func add(_ pointer: String, _ expected: String, _ actual: String, into out: inout [String], omitted: inout Int) {
        guard out.count < maxLines else {
            omitted += 1
            return
        }
        out.append("\(pointer.isEmpty ? "(root)" : pointer): expected \(expected), got \(actual)")
    }

    static func render(_ value: JSON) -> String {
        let text = value.serialized()
        guard text.count > maxValueLength else { return text }
        return text.prefix(maxValueLength) + "…"
    }
}
