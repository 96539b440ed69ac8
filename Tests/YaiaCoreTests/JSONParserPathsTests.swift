import Testing
import YaiaCore
import YaiaKit

/// The parser keeps the members and elements of open containers on stacks
/// that start small and grow, checks key order as keys arrive (comparing
/// them in the text unless they hold escapes), and sorts only objects whose
/// keys arrive out of order. These tests hold its results to a plain
/// reference built here: members sorted by UTF-8 bytes, the last of equal keys winning.
@Suite("JSON parser: key order, duplicates, pending values")
struct JSONParserPathsTests {
    /// A key as written in JSON text, and the key it stands for.
    typealias KeySpec = (text: String, key: String)

    static let keys: [KeySpec] = [
        ("a", "a"), (#"\u0061"#, "a"), ("ab", "ab"), ("", ""), ("z", "z"), ("A", "A"),
        ("é", "é"), (#"\u00e9"#, "é"), (#"\ud83d\ude00"#, "😀"), (#"\""#, "\""),
        ("abcdefghijklmnop", "abcdefghijklmnop"), ("abcdefghijklmno", "abcdefghijklmno"), ("a\\u0000", "a\u{0}"),
    ]

    static func reference(_ pairs: [(key: String, value: JSON)]) -> [(key: [UInt8], value: JSON)] {
        var last: [[UInt8]: JSON] = [:]
        for pair in pairs { last[Array(pair.key.utf8)] = pair.value }
        return last.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { ($0.key, $0.value) }
    }

    static func expectMembers(_ text: String, _ pairs: [(key: String, value: JSON)], sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard case .object(let object) = try JSONParser.parse(text) else {
            Issue.record("not an object: \(text)", sourceLocation: sourceLocation)
            return
        }
        let got = object.members.map { (Array($0.key.utf8), $0.value) }
        let want = reference(pairs)
        #expect(got.map(\.0) == want.map(\.key), "\(text)", sourceLocation: sourceLocation)
        #expect(got.map(\.1) == want.map(\.value), "\(text)", sourceLocation: sourceLocation)
    }

    /// The same order on every run.
    static func shuffled<T>(_ items: [T], _ generator: inout SplitMix64) -> [T] {
        var items = items
        for i in items.indices.reversed() where i > 0 {
            items.swapAt(i, Int(generator.next() % UInt64(i + 1)))
        }
        return items
    }

    static func permutations<T>(_ items: [T]) -> [[T]] {
        guard items.count > 1 else { return [items] }
        var result: [[T]] = []
        for i in items.indices {
            var rest = items
            let first = rest.remove(at: i)
            for tail in permutations(rest) { result.append([first] + tail) }
        }
        return result
    }

    /// Subsets of `keys` by index: with duplicates spelled alike and
    /// differently, prefixes, non-ASCII bytes, small and large strings.
    static let subsets: [[Int]] = [
        [0, 2, 3, 4, 5], [0, 1, 2, 6, 7], [6, 7, 8, 9, 4], [10, 11, 0, 12, 2], [0, 0, 1, 3, 3], [4, 4, 4, 0, 0],
    ]

    @Test("keys in every order give the sorted object, the last duplicate winning", arguments: subsets)
    func everyOrder(subset: [Int]) throws {
        for order in Self.permutations(Array(subset.enumerated())) {
            // Values tell members apart: each is its member's place in the text.
            let written = order.enumerated().map { place, item in (Self.keys[item.element], place) }
            let text = "{" + written.map { "\"\($0.0.text)\":\($0.1)" }.joined(separator: ",") + "}"
            let pairs = written.map { ($0.0.key, JSON.int(Int64($0.1))) }
            try Self.expectMembers(text, pairs)
            // Objects built in Swift follow the same rule.
            let want = Self.reference(pairs)
            for built in [JSONObject(pairs), JSONObject(members: pairs.map { JSONObject.Member(key: $0.0, value: $0.1) })] {
                #expect(built.members.map { Array($0.key.utf8) } == want.map(\.key))
                #expect(built.members.map(\.value) == want.map(\.value))
            }
        }
    }

    @Test("large objects: in order, reversed, shuffled, with duplicates", arguments: [1, 23, 24, 25, 32, 33, 100])
    func largeObjects(count: Int) throws {
        let names = (0..<count).map { "k" + String(1000 + $0) }
        var orders: [[String]] = [names, names.reversed(), names + names, names.reversed() + names]
        var generator = SplitMix64(seed: UInt64(count))
        orders.append(Self.shuffled(names, &generator))
        orders.append(Self.shuffled(names + names.prefix(count / 2), &generator))
        for order in orders {
            let text = "{" + order.enumerated().map { "\"\($1)\":[\($0),\"v\($0)\"]" }.joined(separator: ",") + "}"
            try Self.expectMembers(text, order.enumerated().map { ($1, JSON.array([.int(Int64($0)), .string("v\($0)")])) })
        }
    }

    @Test("long arrays and arrays of arrays keep their elements in order", arguments: [0, 1, 31, 32, 33, 500])
    func longArrays(count: Int) throws {
        let inner = (0..<count).map { JSON.array([.int(Int64($0)), .string(String(repeating: "x", count: $0 % 20))]) }
        let text = "[" + (0..<count).map { "[\($0),\"\(String(repeating: "x", count: $0 % 20))\"]" }.joined(separator: ",") + "]"
        #expect(try JSONParser.parse(text) == .array(inner))
        #expect(try JSONParser.parse("[\(text),\(text)]") == .array([.array(inner), .array(inner)]))
    }

    /// Nesting `levels` deep, objects and arrays alternating, with members
    /// and elements pending before and after each nested value, keys out of
    /// order. An array level holds one more object, so an odd count of
    /// levels reaches one level deeper than `levels`.
    static func nested(_ levels: Int) -> String {
        var text = ""
        for level in 0..<levels { text += level % 2 == 0 ? #"{"z":1,"a":[1,2,3],"m":"# : #"["x",{"q":0},"# }
        text += #""end""#
        for level in (0..<levels).reversed() { text += level % 2 == 0 ? #","b":true}"# : ",null]" }
        return text
    }

    @Test("values pending at every level up to the depth limit")
    func pendingToTheLimit() throws {
        let levels = JSONParser.defaultMaxDepth - 1
        var value = try JSONParser.parse(Self.nested(levels))
        for level in 0..<levels {
            if level % 2 == 0 {
                guard case .object(let object) = value else { Issue.record("level \(level) is not an object"); return }
                #expect(object.keys == ["a", "b", "m", "z"])
                #expect(object["a"] == [1, 2, 3])
                value = object["m"] ?? .null
            } else {
                guard case .array(let array) = value, array.count == 4 else { Issue.record("level \(level) is not a 4-array"); return }
                #expect(array[0] == "x" && array[1] == ["q": 0] && array[3] == .null)
                value = array[2]
            }
        }
        #expect(value == "end")

        // Too deep, complete or cut short: values are pending at every level when the limit is met.
        for text in [Self.nested(levels + 1), Self.nested(levels + 2), String(Self.nested(levels + 2).dropLast(40))] {
            #expect {
                try JSONParser.parse(text)
            } throws: { error in
                guard let error = error as? YaiaError else { return false }
                return error.code == .limitExceeded && error.limit == "depth"
            }
        }
    }

    /// Malformed texts with values pending when the fault is found, and the
    /// exact errors the parser has always given for them.
    static let faults: [(String, String)] = [
        (#"{"b":1,"a":[1,2,{"c":"x""#, "unexpected end of text, expected ',' or '}' at byte 24 (line 1, column 25)"),
        (#"{"a":1,"a":2,}"#, "unexpected '}', expected a string key at byte 13 (line 1, column 14)"),
        (#"[1,2,{"k":tru}]"#, "invalid literal at byte 10 (line 1, column 11)"),
        (#"{"x":"\u00e9\ud800"}"#, "a high surrogate escape must be followed by a low surrogate escape at byte 18 (line 1, column 19)"),
        ("{\"z\":[\"a\",{\"é\":1,\"\\u00e9\":\"a\u{1}\"}]}", "unescaped control character in a string at byte 29 (line 1, column 30)"),
        (#"{"b":[1,2],"a":{"c":1} x"#, "unexpected 'x', expected ',' or '}' at byte 23 (line 1, column 24)"),
        (#"{"b":{"d":1,"c":[true,false,nul]}}"#, "invalid literal at byte 28 (line 1, column 29)"),
        (#"{"b":1 "a":2}"#, "unexpected '\"', expected ',' or '}' at byte 7 (line 1, column 8)"),
        (#"{"b":1,"a" 2}"#, "unexpected '2', expected ':' at byte 11 (line 1, column 12)"),
        (#"[{"a":1},{"b":2},]"#, "unexpected ']', expected a value at byte 17 (line 1, column 18)"),
        (#"{"k":"abcdefghijklmnopqrstuvwxyz\q"}"#, "invalid escape \\'q' at byte 33 (line 1, column 34)"),
        (#"{"k":"unterminated"#, "unterminated string at byte 5 (line 1, column 6)"),
        ("{\"b\":1,\n\"a\":[1,\n-]}", "a number needs digits at byte 17 (line 3, column 2)"),
    ]

    @Test("errors found with values pending are the same as ever", arguments: faults)
    func faultsWhilePending(text: String, message: String) {
        #expect {
            try JSONParser.parse(text)
        } throws: { error in
            guard let error = error as? YaiaError else { return false }
            return error.code == .invalidJSON && error.message == "invalid JSON: " + message
        }
    }

    @Test("invalid UTF-8 after a plain ASCII start")
    func invalidUTF8() {
        let bytes = Array(#"["ok","é"]"#.utf8).map { $0 == 0xA9 ? 0xFF : $0 }
        #expect {
            try JSONParser.parse(bytes)
        } throws: { error in
            (error as? YaiaError)?.message == "invalid JSON: the string is not valid UTF-8 at byte 6 (line 1, column 7)"
        }
    }

    /// Strings either side of the 15 bytes a small string holds, plain,
    /// non-ASCII and escaped (as text, and as the string it stands for).
    static let strings: [(String, String)] = [
        ("", ""), ("a", "a"), ("abcdefghijklmn", "abcdefghijklmn"), ("abcdefghijklmno", "abcdefghijklmno"),
        ("abcdefghijklmnop", "abcdefghijklmnop"), (String(repeating: "xy", count: 40), String(repeating: "xy", count: 40)),
        ("abcdefghijklmé", "abcdefghijklmé"), ("abcdefghijklmnoé", "abcdefghijklmnoé"),
        (#"\"abcdefghijklmn"#, "\"abcdefghijklmn"), (#"abcdefghijklmn\/"#, "abcdefghijklmn/"),
        (#"abcdefg\u00e9hijklmnop\n"#, "abcdefgéhijklmnop\n"), ("tab\\there", "tab\there"),
    ]

    @Test("strings around the small-string size", arguments: strings)
    func stringSizes(text: String, value: String) throws {
        let parsed = try JSONParser.parse("[\"\(text)\",{\"\(text)\":\"\(text)\"}]")
        guard case .array(let array) = parsed, case .string(let s) = array[0], case .object(let o) = array[1] else {
            Issue.record("unexpected shape: \(parsed)")
            return
        }
        #expect(Array(s.utf8) == Array(value.utf8))
        #expect(o.keys.map { Array($0.utf8) } == [Array(value.utf8)])
        #expect(o[value] == .string(value))
    }
}

/// `Action(parsing:)` tells the member names by their bytes, so names spelled
/// with escapes, near misses and duplicates must read as they do through
/// `Action(json: JSONParser.parse(...))`.
@Suite("Action parsing: member names")
struct ActionMemberNameTests {
    static let texts: [(String, Action?)] = [
        (#"{"typ\u0065":"a","\u0070ayload":1}"#, Action("a", payload: 1)),
        (#"{"type":"a","m\u0065ta":{"x":1},"\u0065rror":true}"#, Action("a", error: true, meta: ["x": 1])),
        (#"{"type":"a","error":true,"err\u006Fr":false}"#, Action("a", error: false)),
        (#"{"typ":"x","types":"y","type":"a","Type":"b","payload ":1,"typé":"c","\"type":"d"}"#, Action("a")),
        (#"{"type":"a","type":"\u0062","payload":1,"payload":[2]}"#, Action("b", payload: [2])),
        (#"{"payload":{"type":"inner"},"tÿpe":"x"}"#, nil),
    ]

    @Test("names read alike in both forms", arguments: texts)
    func names(text: String, expected: Action?) throws {
        let bytes = Array(text.utf8)
        let (fast, plain) = bytes.withUnsafeBufferPointer { buffer in
            (Result { () throws(YaiaError) in try Action(parsing: buffer) },
             Result { () throws(YaiaError) in try Action(json: try JSONParser.parse(buffer)) })
        }
        #expect(fast == plain)
        if let expected {
            #expect(try fast.get() == expected)
        } else {
            guard case .failure(let error) = fast else { Issue.record("accepted \(text)"); return }
            #expect(error.code == .missingActionType && error.at == "/type")
        }
    }
}

/// Decimals whose digits fit 2^53 and whose power of ten is at most 22 are
/// converted with one multiplication or division; every other one by
/// Swift's own parser. Both must give the bits Double(text) gives.
@Suite("JSON numbers: doubles")
struct JSONDoubleTests {
    static func expectSame(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let parsed = try JSONParser.parse(text)
        guard case .double(let d) = parsed, let reference = Double(text) else {
            Issue.record("\(text) gave \(parsed)", sourceLocation: sourceLocation)
            return
        }
        #expect(d.bitPattern == reference.bitPattern, "\(text)", sourceLocation: sourceLocation)
    }

    @Test("edges of the exact conversion")
    func edges() throws {
        let texts = [
            "0.0", "-0.0", "-0e5", "0e-400", "-0.000", "1.0", "0.5", "-2.25", "0.1", "0.3", "1e22", "1e23", "1e-22", "1e-23",
            "9007199254740992e22", "9007199254740993e22", "9007199254740992.0", "9007199254740993.0", "9007199254740992e-22",
            "900719925474099.3", "0.9007199254740993", "12345678901234567890.5", "1.2345678901234567890123e5",
            "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "123.456e-20", "123.456e+20", "1E2", "1e+00002",
            "1e-0000000000000000000000000000001", "3.14159265358979323846", "0.000001", "100000000000000000000000.0",
        ]
        for text in texts { try Self.expectSame(text) }
    }

    @Test("many decimals agree with Double(text)")
    func many() throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let digits = Int(generator.next() % 19) + 1
            var text = generator.next() % 2 == 0 ? "-" : ""
            var mantissa = String(generator.next() % 9 + 1)
            for _ in 1..<digits { mantissa += String(generator.next() % 10) }
            let point = Int(generator.next() % UInt64(digits + 1))
            text += point == 0 ? "0." + mantissa : String(mantissa.prefix(point)) + (point < digits ? "." + mantissa.dropFirst(point) : "")
            if point == digits || generator.next() % 2 == 0 {
                text += "e" + String(Int(generator.next() % 61) - 30)
            }
            try Self.expectSame(text)
        }
    }
}
