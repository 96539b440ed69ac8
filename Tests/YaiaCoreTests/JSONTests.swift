import Foundation
import Testing
import YaiaCore
import YaiaKit

@Suite("JSON parse and serialize")
struct JSONRoundTripTests {
    /// One value of every kind, with the canonical text it must print as.
    static let canonical: [(JSON, String)] = [
        (.null, "null"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.int(0), "0"),
        (.int(-1), "-1"),
        (.int(42), "42"),
        (.int(Int64.max), "9223372036854775807"),
        (.int(Int64.min), "-9223372036854775808"),
        (.uint(UInt64.max), "18446744073709551615"),
        (.double(0.5), "0.5"),
        (.double(-2.25), "-2.25"),
        (.string(""), "\"\""),
        (.string("hello"), "\"hello\""),
        (.string("é😀"), "\"é😀\""),
        (.array([]), "[]"),
        (.array([1, "a", [true, .null]]), "[1,\"a\",[true,null]]"),
        (.object([:]), "{}"),
        (["b": 1, "a": ["c": [1, 2]]], "{\"a\":{\"c\":[1,2]},\"b\":1}"),
    ]

    @Test("every kind serializes canonically", arguments: canonical)
    func serializes(value: JSON, text: String) {
        #expect(value.serialized() == text)
        #expect(value.serializedBytes() == Array(text.utf8))
        #expect(value.description == text)
    }

    @Test("every kind parses from its canonical text and back", arguments: canonical)
    func roundTrips(value: JSON, text: String) throws {
        let parsed = try JSONParser.parse(text)
        #expect(parsed == value)
        #expect(parsed.serialized() == text)
        // The byte and String entry points agree.
        #expect(try JSONParser.parse(Array(text.utf8)) == value)
    }

    @Test("numbers keep their kind when parsed")
    func numberKinds() throws {
        guard case .int(let small) = try JSONParser.parse("-12") else { Issue.record("-12 is not .int"); return }
        #expect(small == -12)
        guard case .int(let min) = try JSONParser.parse("-9223372036854775808") else {
            Issue.record("Int64.min is not .int"); return
        }
        #expect(min == Int64.min)
        guard case .int(let max) = try JSONParser.parse("9223372036854775807") else {
            Issue.record("Int64.max is not .int"); return
        }
        #expect(max == Int64.max)
        guard case .uint(let big) = try JSONParser.parse("9223372036854775808") else {
            Issue.record("Int64.max + 1 is not .uint"); return
        }
        #expect(big == UInt64(Int64.max) + 1)
        guard case .uint(let umax) = try JSONParser.parse("18446744073709551615") else {
            Issue.record("UInt64.max is not .uint"); return
        }
        #expect(umax == UInt64.max)
        guard case .double(let d64) = try JSONParser.parse("18446744073709551616") else {
            Issue.record("2^64 is not .double"); return
        }
        #expect(d64 == 18446744073709551616.0)
        guard case .double(let below) = try JSONParser.parse("-9223372036854775809") else {
            Issue.record("Int64.min - 1 is not .double"); return
        }
        #expect(below == -9223372036854775809.0)
        guard case .double(let one) = try JSONParser.parse("1.0") else { Issue.record("1.0 is not .double"); return }
        #expect(one == 1)
        guard case .double(let e) = try JSONParser.parse("1E2") else { Issue.record("1E2 is not .double"); return }
        #expect(e == 100)
    }

    @Test("white space around and between tokens is accepted")
    func whiteSpace() throws {
        let value = try JSONParser.parse(" \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" :\nnull }\n ")
        #expect(value == ["a": [1, 2], "b": .null])
        #expect(value.serialized() == "{\"a\":[1,2],\"b\":null}")
    }
}

@Suite("JSON canonical output")
struct JSONCanonicalTests {
    static let doubles: [(Double, String)] = [
        (1.0, "1"),
        (100.0, "100"),
        (0.1, "0.1"),
        (1.5, "1.5"),
        (-1.5, "-1.5"),
        (-0.0, "-0.0"),
        (0.0, "0"),
        (1e300, "1e+300"),
        (Double.leastNonzeroMagnitude, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (9007199254740991.0, "9007199254740991"),
        (9007199254740992.0, "9007199254740992"),
        (123456.789, "123456.789"),
        (1e-7, "1e-07"),
        (1e21, "1e+21"),
    ]

    @Test("doubles print in the shortest form; whole ones as integers", arguments: doubles)
    func doubleText(value: Double, text: String) throws {
        #expect(JSON.double(value).serialized() == text)
        // What is printed reads back as the same number.
        let back = try JSONParser.parse(text)
        #expect(back.doubleValue == value)
        #expect(back == .double(value))
    }

    @Test("text appended is copied exactly, at every length and offset")
    func appendCopiesExactly() {
        // Short runs are copied as words that may overlap: every length
        // around the word sizes, after every offset into a small buffer.
        let source = (0..<40).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        for offset in 0..<9 {
            let padding = [UInt8](repeating: UInt8(ascii: "-"), count: offset)
            for length in 0...source.count {
                var w = JSONWriter(capacity: 1)
                padding.withUnsafeBytes { w.append($0) }
                source.withUnsafeBytes { w.append(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
                padding.withUnsafeBytes { w.append($0) }
                #expect(w.takeBytes() == padding + source[0..<length] + padding, "offset \(offset), length \(length)")
            }
        }
    }

    @Test("a writer on borrowed memory moves to its own when it outgrows it, the text intact")
    func borrowedMemory() {
        let text = #"{"args":{"key":"a","value":[1,2,3]},"op":"put"}"#
        withUnsafeTemporaryAllocation(byteCount: 16, alignment: 1) { stack in
            var w = JSONWriter(borrowing: stack)
            w.raw("{\"a\":1}")
            // Still in the caller's memory.
            #expect(w.withBytes { $0.baseAddress } == UnsafeRawPointer(stack.baseAddress))
            w.reset()
            Array(text.utf8).withUnsafeBytes { w.append($0) }
            #expect(w.withBytes { $0.baseAddress } != UnsafeRawPointer(stack.baseAddress))
            #expect(String(decoding: w.takeBytes(), as: UTF8.self) == text)
        }
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { stack in
            var w = JSONWriter(borrowing: stack)
            w.write(["ok": true])
            // Taken, the text is a copy of the writer's own, which C may free.
            let c = w.takeCString()
            #expect(c.map { UnsafeRawPointer($0) } != UnsafeRawPointer(stack.baseAddress))
            #expect(c.map { String(cString: $0) } == #"{"ok":true}"#)
            free(c)
        }
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { stack in
            var w = JSONWriter(borrowing: stack)
            w.raw("[1]")
            var other = JSONWriter(capacity: 8)
            other.raw("[2]")
            w.exchange(with: &other)
            #expect(other.withBytes { $0.baseAddress } == UnsafeRawPointer(stack.baseAddress))
            #expect(String(decoding: w.takeBytes(), as: UTF8.self) == "[2]")
            #expect(other.takeText().map { String(decoding: $0.bytes, as: UTF8.self) } == "[1]")
        }
    }

    @Test("the same number prints the same whatever its kind")
    func numberKindsPrintAlike() {
        #expect(JSON.double(7).serialized() == JSON.int(7).serialized())
        #expect(JSON.uint(7).serialized() == "7")
        #expect(JSON.double(-3).serialized() == "-3")
        #expect(JSON.double(0).serialized() == JSON.int(0).serialized())
    }

    @Test("-0.0 keeps its sign: its own value, printed as -0.0")
    func negativeZero() throws {
        let parsed = try JSONParser.parse("-0.0")
        #expect(parsed.doubleValue?.sign == .minus)
        #expect(parsed == .double(-0.0))
        #expect(parsed.serialized() == "-0.0")
        #expect(JSON.double(-0.0) != .double(0.0))
        #expect(JSON.double(-0.0) != .int(0))
        #expect(JSON.int(0) != .double(-0.0))
        #expect(try JSONParser.parse("[-0.0,0]").serialized() == "[-0.0,0]")
        // An integer literal has no negative zero.
        #expect(try JSONParser.parse("-0") == .int(0))
        #expect(try JSONParser.parse("-0").serialized() == "0")
    }

    @Test("non-finite doubles have no JSON form")
    func nonFinite() {
        #expect(JSON(Double.nan) == .null)
        #expect(JSON(Double.infinity) == .null)
        #expect(JSON(-Double.infinity) == .null)
        #expect(JSON(2.5) == .double(2.5))
    }

    @Test("object keys are sorted by their UTF-8 bytes")
    func keyOrder() throws {
        // U+FFFF (EF BF BF) sorts before U+10000 (F0 90 80 80) by UTF-8 bytes,
        // though not by UTF-16 code units; "Z" < "a" < "é" < "\u{FFFF}" < "😀".
        let value: JSON = ["😀": 1, "é": 2, "a": 3, "Z": 4, "\u{FFFF}": 5, "\u{10000}": 6, "": 7, "ab": 8]
        #expect(value.serialized() == "{\"\":7,\"Z\":4,\"a\":3,\"ab\":8,\"é\":2,\"\u{FFFF}\":5,\"\u{10000}\":6,\"😀\":1}")
        #expect(value.objectValue?.keys == ["", "Z", "a", "ab", "é", "\u{FFFF}", "\u{10000}", "😀"])
        // Parsing the keys in any order gives the same bytes.
        let parsed = try JSONParser.parse("{\"\u{10000}\":6,\"ab\":8,\"😀\":1,\"\u{FFFF}\":5,\"é\":2,\"\":7,\"a\":3,\"Z\":4}")
        #expect(parsed.serialized() == value.serialized())
    }

    @Test("keys that are canonically equivalent but differ in bytes stay distinct")
    func keysCompareByBytes() throws {
        let composed = "\u{E9}"  // é
        let decomposed = "e\u{301}"  // e + combining acute
        let value = try JSONParser.parse("{\"\u{E9}\":1,\"e\u{301}\":2}")
        let object = try #require(value.objectValue)
        #expect(object.count == 2)
        #expect(object[composed] == 1)
        #expect(object[decomposed] == 2)
        // 0x65 ('e') sorts before 0xC3 (the lead byte of é).
        #expect(value.serialized() == "{\"e\u{301}\":2,\"\u{E9}\":1}")
        #expect(JSON.string(composed) != JSON.string(decomposed))
    }

    @Test("no white space in output")
    func compact() {
        let value: JSON = ["a": [1, 2, ["b": .null]], "c": "d e"]
        #expect(value.serialized() == "{\"a\":[1,2,{\"b\":null}],\"c\":\"d e\"}")
    }

    static let bigWholeNumbers: [(JSON, JSON)] = [
        (.int(9_007_199_254_740_994), .double(9_007_199_254_740_994)),  // 2^53 + 2
        (.int(10_000_000_000_000_000), .double(1e16)),
        (.int(1_000_000_000_000_000_000), .double(1e18)),
        (.uint(9_223_372_036_854_775_808), .double(9_223_372_036_854_775_808)),  // 2^63
    ]

    @Test("equal whole numbers above 2^53 print alike whatever their kind", arguments: bigWholeNumbers)
    func bigWholeNumbersPrintAlike(integer: JSON, double: JSON) throws {
        #expect(integer == double)
        // Parsing "9007199254740992" and "9007199254740992.0" gives equal values...
        let text = integer.serialized()
        #expect(try JSONParser.parse(text) == JSONParser.parse(text + ".0"))
        // ...which must then print as the same bytes (docs/abi.md: "the same value
        // always prints as the same bytes").
        #expect(double.serialized() == integer.serialized())
    }

    @Test("equal values serialize to equal bytes")
    func equalValuesEqualBytes() throws {
        let a = try JSONParser.parse("{ \"x\": 1.0, \"y\": [ 2e0 ] }")
        let b: JSON = ["y": [.int(2)], "x": .uint(1)]
        #expect(a == b)
        #expect(a.serializedBytes() == b.serializedBytes())
    }
}

@Suite("JSON equality and hashing")
struct JSONEqualityTests {
    static let equalPairs: [(JSON, JSON)] = [
        (.int(1), .double(1)),
        (.int(0), .double(0)),
        (.uint(5), .int(5)),
        (.uint(9_223_372_036_854_775_808), .double(9_223_372_036_854_775_808)),
        (.double(-2.5), .double(-2.5)),
        (.array([.int(1), .double(2.5)]), .array([.double(1), .double(2.5)])),
        (.object(["a": .int(3)]), .object(["a": .double(3)])),
        (.string("é"), .string("é")),
    ]

    @Test("numbers compare by value across kinds; equal values hash equally", arguments: equalPairs)
    func equal(a: JSON, b: JSON) {
        #expect(a == b)
        #expect(b == a)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
    }

    static let unequalPairs: [(JSON, JSON)] = [
        (.int(1), .double(1.5)),
        (.int(0), .double(-0.0)),
        (.double(0), .double(-0.0)),
        (.int(-1), .uint(UInt64.max)),
        (.uint(UInt64.max), .double(18_446_744_073_709_551_616)),
        (.int(1), .bool(true)),
        (.int(0), .null),
        (.string("1"), .int(1)),
        (.array([]), .object([:])),
        (.array([1]), .array([1, 1])),
        (["a": 1], ["a": 1, "b": 1]),
        (["a": 1], ["b": 1]),
        (.string("a"), .string("A")),
    ]

    static let negativeWholePairs: [(JSON, JSON)] = [
        (.int(-1), .double(-1)),
        (.int(-3), .double(-3)),
        (.int(-9_007_199_254_740_991), .double(-9_007_199_254_740_991)),
    ]

    @Test("negative whole numbers compare by value across kinds", arguments: negativeWholePairs)
    func negativeWhole(integer: JSON, double: JSON) throws {
        // They print the same bytes...
        #expect(integer.serialized() == double.serialized())
        // ...and "-3" and "-3.0" are the same number.
        let text = integer.serialized()
        let a = try JSONParser.parse(text)
        let b = try JSONParser.parse(text + ".0")
        #expect(integer == double)
        #expect(double == integer)
        #expect(a == b)
        #expect(integer.hashValue == double.hashValue)
    }

    @Test("different values are not equal", arguments: unequalPairs)
    func unequal(a: JSON, b: JSON) {
        #expect(a != b)
        #expect(b != a)
    }

    @Test("JSON works as a dictionary key across number kinds")
    func dictionaryKey() {
        var d: [JSON: String] = [:]
        d[.int(3)] = "three"
        #expect(d[.double(3)] == "three")
        #expect(d[.uint(3)] == "three")
        d[.double(3)] = "drei"
        #expect(d.count == 1)
    }

    @Test("accessors")
    func accessors() {
        #expect(JSON.double(1.0).int64Value == 1)
        #expect(JSON.double(1.5).int64Value == nil)
        #expect(JSON.uint(UInt64.max).int64Value == nil)
        #expect(JSON.uint(7).int64Value == 7)
        #expect(JSON.string("1").int64Value == nil)
        #expect(JSON.int(2).doubleValue == 2)
        #expect(JSON(UInt64(7)) == .int(7))
        if case .int = JSON(UInt64(7)) {} else { Issue.record("JSON(UInt64) that fits must be .int") }
        if case .uint = JSON(UInt64.max) {} else { Issue.record("JSON(UInt64.max) must be .uint") }
        #expect(JSON(String?.none) == .null)
        #expect(JSON(String?.some("x")) == "x")
        #expect(JSON(3) == .int(3))
        #expect(JSON(true) == .bool(true))
        #expect(JSON.null.isNull)
        #expect(!JSON.int(0).isNull)
        #expect(JSON.int(0).isNumber && JSON.uint(0).isNumber && JSON.double(0).isNumber)
        #expect(!JSON.string("0").isNumber)
        let o: JSON = ["a": ["b": 1]]
        #expect(o["a"]?["b"] == 1)
        #expect(o["missing"] == nil)
        #expect(JSON.array([1])["a"] == nil)
        #expect(JSON.string("s").stringValue == "s")
        #expect(JSON.bool(false).boolValue == false)
        #expect(JSON.array([1]).arrayValue == [1])
        #expect(JSON.int(1).stringValue == nil)
        #expect(JSON.null.kindName == "null")
        #expect(JSON.double(1).kindName == "a number")
        #expect(JSON.object([:]).kindName == "an object")
    }
}

@Suite("JSON objects")
struct JSONObjectTests {
    @Test("duplicate keys: the last one wins")
    func duplicatesInText() throws {
        let value = try JSONParser.parse("{\"a\":1,\"b\":2,\"a\":3,\"a\":4}")
        #expect(value == ["a": 4, "b": 2])
        #expect(value.serialized() == "{\"a\":4,\"b\":2}")
    }

    @Test("members out of order are sorted, the last of a repeated key kept", arguments: [
        (#"{"service":"echo","op":"echo","args":1}"#, #"{"args":1,"op":"echo","service":"echo"}"#),
        (#"{"b":1,"a":2,"b":3}"#, #"{"a":2,"b":3}"#),
        (#"{"c":1,"b":2,"a":3,"c":4,"a":5}"#, #"{"a":5,"b":2,"c":4}"#),
        (#"{"z":1,"y":{"q":1,"p":2},"x":[{"n":1,"m":2}]}"#, #"{"x":[{"m":2,"n":1}],"y":{"p":2,"q":1},"z":1}"#),
    ])
    func unorderedText(text: String, sorted: String) throws {
        let read = try JSONParser.parse(text)
        #expect(read.serialized() == sorted)
        #expect(read == (try JSONParser.parse(sorted)))
    }

    @Test("duplicate keys in initializers: the last one wins, small and large objects", arguments: [3, 40])
    func duplicatesInInit(size: Int) {
        // Keys in reverse order with every key given three times: sorting is needed,
        // and above 32 members another sorting path is taken.
        var pairs: [(String, JSON)] = []
        for round in 0..<3 {
            for i in (0..<size).reversed() {
                pairs.append((String(format: "k%03d", i), .int(Int64(round * 1000 + i))))
            }
        }
        let object = JSONObject(pairs)
        #expect(object.count == size)
        #expect(object.keys == (0..<size).map { String(format: "k%03d", $0) })
        for i in 0..<size {
            #expect(object[String(format: "k%03d", i)] == .int(Int64(2000 + i)))
        }
        let literal: JSONObject = ["x": 1, "y": 2, "x": 3]
        #expect(literal == ["x": 3, "y": 2])
    }

    @Test("subscript set, replace and remove keep the key order")
    func subscriptEditing() {
        var o = JSONObject()
        #expect(o.isEmpty)
        o["m"] = 1
        o["z"] = 2
        o["a"] = 3
        o["q"] = 4
        #expect(o.keys == ["a", "m", "q", "z"])
        o["m"] = "replaced"
        #expect(o.count == 4)
        #expect(o["m"] == "replaced")
        o["q"] = nil
        #expect(o.keys == ["a", "m", "z"])
        #expect(o["q"] == nil)
        o["absent"] = nil
        #expect(o.count == 3)
        o["a"] = nil
        o["z"] = nil
        #expect(o.keys == ["m"])
        o["m"] = nil
        #expect(o.isEmpty)
        #expect(JSON.object(o).serialized() == "{}")
    }

    @Test("setting null stores null; only Swift nil removes")
    func nullIsAValue() {
        var o: JSONObject = ["a": 1]
        o["a"] = .null
        #expect(o.count == 1)
        #expect(o["a"] == .some(.null))
        #expect(JSON.object(o).serialized() == "{\"a\":null}")
    }

    @Test("iteration follows key order")
    func iteration() {
        let o: JSONObject = ["c": 3, "a": 1, "b": 2]
        var seen: [String] = []
        var values: [JSON] = []
        for (key, value) in o {
            seen.append(key)
            values.append(value)
        }
        #expect(seen == ["a", "b", "c"])
        #expect(values == [1, 2, 3])
    }

    @Test("objects compare independently of construction order and hash alike")
    func equality() {
        let a = JSONObject([("x", 1), ("y", 2)])
        let b = JSONObject([("y", 2.0), ("x", 1)])
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != JSONObject([("x", 1)]))
    }

    @Test("members initializer")
    func membersInit() {
        let o = JSONObject(members: [.init(key: "b", value: 1), .init(key: "a", value: 2), .init(key: "b", value: 3)])
        #expect(o.keys == ["a", "b"])
        #expect(o["b"] == 3)
        let sorted = JSONObject(members: [.init(key: "a", value: 1), .init(key: "b", value: 2)])
        #expect(sorted.keys == ["a", "b"])
    }
}

@Suite("JSON string escapes")
struct JSONEscapeTests {
    static let reading: [(String, String)] = [
        ("\"\\u0041\"", "A"),
        ("\"\\u00e9\"", "é"),
        ("\"\\u00E9\"", "é"),
        ("\"\\u20AC\"", "€"),
        ("\"\\uD83D\\uDE00\"", "😀"),
        ("\"\\ud83d\\ude00\"", "😀"),
        ("\"\\/\"", "/"),
        ("\"\\\"\\\\\"", "\"\\"),
        ("\"\\b\\f\\n\\r\\t\"", "\u{8}\u{C}\n\r\t"),
        ("\"\\u0000\"", "\u{0}"),
        ("\"a\\u0062c\"", "abc"),
        ("\"é\\n😀\"", "é\n😀"),
    ]

    @Test("escapes are read", arguments: reading)
    func read(text: String, expected: String) throws {
        let value = try JSONParser.parse(text)
        #expect(value == .string(expected))
    }

    @Test("a surrogate pair escape becomes one scalar")
    func surrogatePair() throws {
        let value = try JSONParser.parse("\"\\uD834\\uDD1E\"")
        let s = try #require(value.stringValue)
        #expect(s.unicodeScalars.count == 1)
        #expect(s.unicodeScalars.first?.value == 0x1D11E)
        #expect(Array(s.utf8) == [0xF0, 0x9D, 0x84, 0x9E])
    }

    static let writing: [(String, String)] = [
        ("\"", "\"\\\"\""),
        ("\\", "\"\\\\\""),
        ("/", "\"/\""),
        ("a/b", "\"a/b\""),
        ("\n\r\t\u{8}\u{C}", "\"\\n\\r\\t\\b\\f\""),
        ("\u{0}", "\"\\u0000\""),
        ("\u{1}", "\"\\u0001\""),
        ("\u{1F}", "\"\\u001f\""),
        ("\u{B}", "\"\\u000b\""),
        ("\u{7F}", "\"\u{7F}\""),
        ("é", "\"é\""),
        ("😀", "\"😀\""),
        ("\u{2028}", "\"\u{2028}\""),
    ]

    @Test("only quote, backslash and control characters are escaped", arguments: writing)
    func write(value: String, text: String) throws {
        #expect(JSON.string(value).serialized() == text)
        #expect(try JSONParser.parse(text) == .string(value))
    }

    @Test("every control character round-trips")
    func allControls() throws {
        let s = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        let text = JSON.string(s).serialized()
        #expect(!text.utf8.contains { $0 < 0x20 })
        #expect(try JSONParser.parse(text) == .string(s))
    }

    @Test("keys are escaped like strings")
    func keyEscapes() throws {
        let value: JSON = ["a\"b\n": 1]
        #expect(value.serialized() == "{\"a\\\"b\\n\":1}")
        #expect(try JSONParser.parse(value.serialized()) == value)
    }
}

@Suite("JSON nesting depth")
struct JSONDepthTests {
    static func arrays(_ n: Int) -> String { String(repeating: "[", count: n) + String(repeating: "]", count: n) }
    static func objects(_ n: Int) -> String {
        String(repeating: "{\"a\":", count: n) + "1" + String(repeating: "}", count: n)
    }

    @Test("512 nested arrays parse, and print back the same")
    func atLimit() throws {
        #expect(JSONParser.defaultMaxDepth == 512)
        let text = Self.arrays(512)
        let value = try JSONParser.parse(text)
        #expect(value.serialized() == text)
    }

    @Test("513 nested arrays reach the depth limit")
    func overLimit() {
        let error = parseError(Self.arrays(513))
        #expect(error?.code == .limitExceeded)
        #expect(error?.limit == "depth")
    }

    @Test("objects count towards the same limit")
    func objectsDepth() throws {
        #expect(try JSONParser.parse(Self.objects(512)).serialized() == Self.objects(512))
        #expect(parseError(Self.objects(513))?.code == .limitExceeded)
        // Mixed: 256 arrays around 257 objects is 513 levels.
        let mixed = String(repeating: "[", count: 256) + Self.objects(257) + String(repeating: "]", count: 256)
        #expect(parseError(mixed)?.code == .limitExceeded)
    }

    @Test("100000 opening brackets fail without exhausting the stack")
    func hostile() {
        #expect(parseError(String(repeating: "[", count: 100_000))?.code == .limitExceeded)
        #expect(parseError(Self.arrays(100_000))?.code == .limitExceeded)
        #expect(parseError(String(repeating: "{\"\":", count: 100_000))?.code == .limitExceeded)
    }

    @Test("maxDepth can be lowered", arguments: [1, 2, 10])
    func customDepth(limit: Int) throws {
        #expect(try JSONParser.parse(Self.arrays(limit), maxDepth: limit) == (try JSONParser.parse(Self.arrays(limit))))
        #expect(parseError(Self.arrays(limit + 1), maxDepth: limit)?.code == .limitExceeded)
        // Scalars have no depth.
        #expect(try JSONParser.parse("1", maxDepth: 0) == 1)
    }
}

@Suite("JSON invalid input")
struct JSONInvalidTests {
    static let texts: [String] = [
        "",
        " ",
        "[1] x",
        "{} {}",
        "1 2",
        "01",
        "-01",
        "00",
        "-",
        "+1",
        ".5",
        "1.",
        "1e",
        "1e+",
        "0x10",
        "\"\\ud800\"",
        "\"\\udc00\"",
        "\"\\ud800\\u0041\"",
        "\"\\ud800x\"",
        "\"\\udbff\\udbff\"",
        "NaN",
        "nan",
        "Infinity",
        "-Infinity",
        "[1,]",
        "{\"a\":1,}",
        "[,1]",
        "[1 2]",
        "{\"a\" 1}",
        "{\"a\":}",
        "{a:1}",
        "{1:2}",
        "{'a':1}",
        "['a']",
        "\"abc",
        "\"abc\\\"",
        "\"\\",
        "[",
        "]",
        "{",
        "}",
        "[1",
        "{\"a\":1",
        "tru",
        "True",
        "nul",
        "nulll",
        "\"\t\"",
        "\"a\nb\"",
        "\"\\x41\"",
        "\"\\u12\"",
        "\"\\u12G4\"",
        "\"\\U0041\"",
        "1e999",
        "-1e999",
        "1e309",
        "[1e400]",
        "/* comment */ 1",
        "// comment\n1",
    ]

    @Test("invalid text gives invalid_json", arguments: texts)
    func invalidText(text: String) {
        let error = parseError(text)
        #expect(error?.code == .invalidJSON)
        #expect(error?.message.isEmpty == false)
    }

    static let byteInputs: [[UInt8]] = [
        [0x22, 0xFF, 0x22],  // 0xFF never appears in UTF-8
        [0x22, 0xC0, 0xAF, 0x22],  // overlong '/'
        [0x22, 0xED, 0xA0, 0x80, 0x22],  // a UTF-16 surrogate encoded in UTF-8
        [0x22, 0xE2, 0x82, 0x22],  // truncated sequence
        [0x22, 0x80, 0x22],  // lone continuation byte
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
        [0x22, 0x5C, 0x6E, 0xFF, 0x22],  // invalid byte after an escape (slow path)
        [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D],  // invalid UTF-8 in a key
        [0xEF, 0xBB, 0xBF, 0x7B, 0x7D],  // byte order mark before {}
        [0xEF, 0xBB, 0xBF, 0x31],  // byte order mark before 1
        [0xFF],
        [0x31, 0x00],  // NUL after the value
        [0x22, 0x00, 0x22],  // raw NUL in a string
    ]

    @Test("invalid bytes give invalid_json", arguments: byteInputs)
    func invalidBytes(bytes: [UInt8]) {
        #expect(parseError(bytes)?.code == .invalidJSON)
    }

    @Test("errors name the byte offset")
    func offsetInMessage() throws {
        let error = try #require(parseError("[1,\n x]"))
        #expect(error.code == .invalidJSON)
        #expect(error.message.contains("byte 5"))
        #expect(error.message.contains("line 2"))
    }

    @Test("numbers at the edge of double range parse")
    func edgeNumbers() throws {
        #expect(try JSONParser.parse("1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
        #expect(try JSONParser.parse("-1.7976931348623157e308") == .double(-.greatestFiniteMagnitude))
        #expect(try JSONParser.parse("5e-324") == .double(.leastNonzeroMagnitude))
        // Below the smallest subnormal rounds to zero: not an error.
        #expect(try JSONParser.parse("1e-400") == .int(0))
    }
}

@Suite("JSON Codable")
struct JSONCodableTests {
    static let values: [JSON] = [
        .null, true, false, 0, -5, .int(Int64.min), .int(Int64.max), .uint(UInt64.max), 0.1, -2.5e-8, 1e300,
        "", "text é 😀 \n \"", [], [1, "a", .null, [false]], [:],
        ["a": 1, "b": ["c": [1.5, "x"]], "é": .null],
    ]

    @Test("round-trips through JSONEncoder and JSONDecoder", arguments: values)
    func roundTrip(value: JSON) throws {
        let data = try JSONEncoder().encode(value)
        let back = try JSONDecoder().decode(JSON.self, from: data)
        #expect(back == value)
        // And Foundation's text is valid JSON to Yaia.
        #expect(try JSONParser.parse(Array(data)) == value)
    }

    @Test("decodes Foundation-made JSON of a Codable type")
    func decodesOtherTypes() throws {
        struct Point: Codable { var x: Int; var y: Double; var tags: [String] }
        let data = try JSONEncoder().encode(Point(x: 1, y: 2.5, tags: ["a"]))
        let value = try JSONDecoder().decode(JSON.self, from: data)
        #expect(value == ["x": 1, "y": 2.5, "tags": ["a"]])
    }

    @Test("object keys that differ only by Unicode normalization stay apart in Yaia's own text form")
    func normalizationDistinctKeys() throws {
        // JSON compares keys by bytes, so these are two members. (Foundation's
        // coders key objects by String and merge them: see MemberKey.)
        let value: JSON = ["\u{E9}": 1, "e\u{301}": 2]
        #expect(value.objectValue?.count == 2)
        let back = try JSONParser.parse(value.serialized())
        #expect(back == value)
        #expect(back.objectValue?.count == 2)
    }
}
