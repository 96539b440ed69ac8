// Differences between JSON values by JSON Pointer: what a scenario run and a
// SceneTest report when a value is not the one expected.

/// Structured differences between JSON values, by JSON Pointer.
package enum ScenarioDiff {
    package struct Difference: Sendable, Equatable {
        package var pointer: String
        /// Nil: no such member or element on that side.
        package var expected: JSON?
        package var actual: JSON?
        /// What is absent on one side is an element of an array, not a member.
        package var inArray = false

        package init(pointer: String, expected: JSON?, actual: JSON?, inArray: Bool = false) {
            self.pointer = pointer
            self.expected = expected
            self.actual = actual
            self.inArray = inArray
        }

        package var json: JSON {
            var o: JSONObject = ["pointer": .string(pointer)]
            if let expected { o["expected"] = expected }
            if let actual { o["actual"] = actual }
            return .object(o)
        }

        /// `/email: expected "a@b.c", got ""`.
        package var line: String {
            let absent = inArray ? "no element" : "no member"
            return "\(pointer.isEmpty ? "(root)" : pointer): expected \(expected.map { ScenarioDiff.render($0) } ?? absent), got \(actual.map { ScenarioDiff.render($0) } ?? absent)"
        }
    }

    /// Differences reported past this many are dropped: a diff of a large list stays readable.
    package static let maxDifferences = 40

    /// Where `actual` differs from `expected`, leaf by leaf, under `pointer`,
    /// in the order of their pointers; at most `limit` of them.
    package static func differences(expected: JSON, actual: JSON, at pointer: String = "", limit: Int = maxDifferences) -> [Difference] {
        var out: [Difference] = []
        walk(expected, actual, at: pointer, limit: limit, into: &out)
        return out
    }

    static func walk(_ expected: JSON, _ actual: JSON, at pointer: String, limit: Int = maxDifferences, into out: inout [Difference]) {
        func add(_ p: String, _ e: JSON?, _ a: JSON?, inArray: Bool = false) {
            if out.count < limit { out.append(Difference(pointer: p, expected: e, actual: a, inArray: inArray)) }
        }
        guard out.count < limit else { return }
        switch (expected, actual) {
        case let (.object(e), .object(a)):
            // Members are kept sorted by the UTF-8 bytes of their keys: merge the two lists.
            let em = e.members, am = a.members
            var i = 0, j = 0
            while i < em.count || j < am.count {
                if j == am.count || (i < em.count && em[i].key.utf8.lexicographicallyPrecedes(am[j].key.utf8)) {
                    add(JSONPointer.appending(pointer, em[i].key), em[i].value, nil)
                    i += 1
                } else if i == em.count || am[j].key.utf8.lexicographicallyPrecedes(em[i].key.utf8) {
                    add(JSONPointer.appending(pointer, am[j].key), nil, am[j].value)
                    j += 1
                } else {
                    walk(em[i].value, am[j].value, at: JSONPointer.appending(pointer, em[i].key), limit: limit, into: &out)
                    i += 1
                    j += 1
                }
            }
        case let (.array(e), .array(a)):
            for i in 0..<max(e.count, a.count) {
                let p = JSONPointer.appending(pointer, i)
                if i >= a.count { add(p, e[i], nil, inArray: true) } else if i >= e.count { add(p, nil, a[i], inArray: true) } else { walk(e[i], a[i], at: p, limit: limit, into: &out) }
            }
        default:
            if expected != actual { add(pointer, expected, actual) }
        }
    }

    /// Differences where `actual` lacks or differs from what `expected`'s
    /// members state (members of objects, recursively only at the top level).
    package static func partial(expected: JSONObject, actual: JSON, at pointer: String) -> [Difference] {
        var out: [Difference] = []
        for m in expected.members {
            let p = m.key.hasPrefix("/") ? m.key : JSONPointer.appending("", m.key)
            let found = value(at: p, in: actual)
            if let found {
                walk(m.value, found, at: pointer + p, into: &out)
            } else if out.count < maxDifferences {
                out.append(Difference(pointer: pointer + p, expected: m.value, actual: nil))
            }
        }
        return out
    }

    /// Whether `text` is a JSON Pointer whose escapes are well formed.
    package static func isPointer(_ text: String) -> Bool {
        guard text.isEmpty || text.hasPrefix("/") else { return false }
        var bytes = text.utf8.makeIterator()
        while let b = bytes.next() {
            if b == UInt8(ascii: "~") {
                guard let n = bytes.next(), n == UInt8(ascii: "0") || n == UInt8(ascii: "1") else { return false }
            }
        }
        return true
    }

    static func tokens(_ pointer: String) -> [String] {
        guard !pointer.isEmpty else { return [] }
        return pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { token in
            var s = String(token)
            if s.contains("~") {
                s = s.replacing("~1", with: "/").replacing("~0", with: "~")
            }
            return s
        }
    }

    /// The value at `pointer` in `json`, if there is one.
    package static func value(at pointer: String, in json: JSON) -> JSON? {
        var current = json
        for token in tokens(pointer) {
            switch current {
            case .object(let o):
                guard let v = o[token] else { return nil }
                current = v
            case .array(let a):
                guard let i = Int(token), i >= 0, i < a.count, token == String(i) else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }

    /// `json` with `value` set at `pointer` (a nil value removes what is
    /// there); nil when there is nowhere to put it.
    package static func setting(_ value: JSON?, at pointer: String, in json: JSON) -> JSON? {
        set(value, tokens(pointer)[...], in: json)
    }

    private static func set(_ value: JSON?, _ tokens: ArraySlice<String>, in json: JSON) -> JSON? {
        guard let token = tokens.first else { return value ?? .null }
        let rest = tokens.dropFirst()
        switch json {
        case .object(var o):
            if rest.isEmpty {
                o[token] = value
            } else {
                guard let child = o[token], let changed = set(value, rest, in: child) else { return nil }
                o[token] = changed
            }
            return .object(o)
        case .array(var a):
            // "-", or the index one past the end, appends (as a JSON Patch add does).
            if rest.isEmpty && (token == "-" || token == String(a.count)) {
                if let value { a.append(value) }
                return .array(a)
            }
            guard let i = Int(token), i >= 0, i < a.count, token == String(i) else { return nil }
            if rest.isEmpty, value == nil {
                a.remove(at: i)
                return .array(a)
            }
            guard let changed = set(value, rest, in: a[i]) else { return nil }
            a[i] = changed
            return .array(a)
        default:
            return nil
        }
    }

    /// A value as compact JSON, shortened past `limit` characters.
    package static func render(_ value: JSON, limit: Int = 240) -> String {
        let text = value.serialized()
        guard text.count > limit else { return text }
        return text.prefix(limit) + "…"
    }
}
