import Testing
import YaiaCore
import YaiaExamples
import YaiaKit

// JSONValueEncoder / JSONValueDecoder and the Codable defaults for scenes.
// Values in, values out: every test compares values (and errors) with ==.

// MARK: - Types of the tests' own

struct Address: Codable, Equatable {
    var street: String
    var zip: String?
}

struct Person: Codable, Equatable {
    var name: String
    var age: Int
    var height: Double
    var admin: Bool
    var nickname: String?
    var addresses: [Address]
    var tags: [String: Int]
    var scores: [Int?]
}

enum Color: String, Codable, Equatable {
    case red, green
}

enum Level: Int, Codable, Equatable {
    case low = 1, high = 9
}

enum Shape: Codable, Equatable {
    case point
    case circle(Double)
    case rect(width: Int, height: Int)
    case label(String, Color)
}

/// JSON inside a Codable type: copied as it is, whatever it holds.
struct Envelope: Codable, Equatable {
    var kind: String
    var body: JSON
    var extra: JSON?
    var list: [JSON]
    var byName: [String: JSON]
}

/// Writes and reads itself through nested containers and a super encoder.
struct Nested: Codable, Equatable {
    var a: Int
    var b: [String]
    var c: Bool

    enum CodingKeys: String, CodingKey { case outer, list, base }
    enum InnerKeys: String, CodingKey { case a }

    init(a: Int, b: [String], c: Bool) {
        self.a = a
        self.b = b
        self.c = c
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        a = try container.nestedContainer(keyedBy: InnerKeys.self, forKey: .outer).decode(Int.self, forKey: .a)
        var list = try container.nestedUnkeyedContainer(forKey: .list)
        var b: [String] = []
        while !list.isAtEnd { b.append(try list.decode(String.self)) }
        self.b = b
        c = try container.superDecoder(forKey: .base).singleValueContainer().decode(Bool.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var outer = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .outer)
        try outer.encode(a, forKey: .a)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        for s in b { try list.encode(s) }
        var base = container.superEncoder(forKey: .base).singleValueContainer()
        try base.encode(c)
    }
}

/// A pair read from a two-element array.
struct Pair: Codable, Equatable {
    var x: Int
    var y: Int

    init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        x = try c.decode(Int.self)
        y = try c.decode(Int.self)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(x)
        try c.encode(y)
    }
}

/// Validates in its own init(from:) with a DecodingError.
struct Percent: Decodable, Equatable {
    var value: Int

    enum CodingKeys: String, CodingKey { case value }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        value = try c.decode(Int.self, forKey: .value)
        guard (0...100).contains(value) else {
            throw DecodingError.dataCorruptedError(forKey: .value, in: c, debugDescription: "a percentage is from 0 to 100")
        }
    }
}

struct EncodingRefused: Error {}

/// A view model whose hand-written encode(to:) fails.
struct Broken: Encodable, JSONRepresentable {
    func encode(to encoder: any Encoder) throws { throw EncodingRefused() }
}

struct Empty: Codable, Equatable {}

/// Writes every key twice, in descending order, then "a" twice: the second
/// value of each is the one that stays.
struct Rewritten: Encodable {
    var count: Int

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        for i in (0..<count).reversed() { try c.encode(i, forKey: Key(stringValue: "k\(i)")) }
        try c.encode(1, forKey: Key(stringValue: "a"))
        for i in 0..<count { try c.encode(i + 100, forKey: Key(stringValue: "k\(i)")) }
        try c.encode(2, forKey: Key(stringValue: "a"))
    }
}

func encoded<T: Encodable>(_ value: T) throws(YaiaError) -> JSON { try JSONValueEncoder().encode(value) }

func decoded<T: Decodable>(_ type: T.Type, _ value: JSON, code: ErrorCode = .badPayload, at base: String = "") throws(YaiaError) -> T {
    try JSONValueDecoder().decode(type, from: value, code: code, at: base)
}

func decodeError<T: Decodable>(_ type: T.Type, _ value: JSON, code: ErrorCode = .badPayload, at base: String = "") -> YaiaError? {
    yaiaError { () throws(YaiaError) in try decoded(type, value, code: code, at: base) }
}

// MARK: - Round trips

@Suite("JSONValueEncoder / JSONValueDecoder: round trips")
struct CodingRoundTripTests {
    static let person = Person(
        name: "Ada", age: 36, height: 1.65, admin: true, nickname: nil,
        addresses: [Address(street: "1 Main St", zip: "12345"), Address(street: "2 Side St", zip: nil)],
        tags: ["a/b": 1, "z": -2], scores: [1, nil, 3])

    @Test("nested structs, arrays, optionals and dictionaries, in canonical key order")
    func nestedStruct() throws {
        let value = try encoded(Self.person)
        let expected = try json("""
            {"addresses":[{"street":"1 Main St","zip":"12345"},{"street":"2 Side St","zip":null}],
             "admin":true,"age":36,"height":1.65,"name":"Ada","nickname":null,
             "scores":[1,null,3],"tags":{"a/b":1,"z":-2}}
            """)
        #expect(value == expected)
        #expect(value.serialized() == expected.serialized())
        #expect(try decoded(Person.self, value) == Self.person)
    }

    @Test("nil is written as null; missing and null both read as nil")
    func optionals() throws {
        #expect(try encoded(Address(street: "s", zip: nil)) == ["street": "s", "zip": .null])
        #expect(try decoded(Address.self, ["street": "s"]) == Address(street: "s", zip: nil))
        #expect(try decoded(Address.self, ["street": "s", "zip": .null]) == Address(street: "s", zip: nil))
        #expect(try encoded(Optional<Int>.none) == .null)
        #expect(try encoded(Optional<Int>.some(4)) == 4)
        #expect(try decoded(Int?.self, .null) == nil)
        #expect(try decoded(Int?.self, 4) == 4)
        #expect(try decoded([String?].self, ["a", .null]) == ["a", nil])
    }

    @Test("top-level values JSON carries directly")
    func primitives() throws {
        #expect(try encoded("s") == "s")
        #expect(try encoded(true) == true)
        #expect(try encoded(-7) == -7)
        #expect(try encoded(UInt64.max) == .uint(UInt64.max))
        #expect(try encoded(UInt64(5)) == .int(5))
        #expect(try encoded(2.5) == 2.5)
        #expect(try decoded(String.self, "s") == "s")
        #expect(try decoded(Bool.self, false) == false)
        #expect(try decoded(UInt64.self, .uint(UInt64.max)) == UInt64.max)
        #expect(try decoded(Double.self, .uint(UInt64.max)) == Double(UInt64.max))
    }

    @Test("dictionaries with String and Int keys are objects")
    func dictionaries() throws {
        let byString: [String: [Int]] = ["b": [1], "a": []]
        #expect(try encoded(byString) == ["a": [], "b": [1]])
        #expect(try decoded([String: [Int]].self, ["a": [], "b": [1]]) == byString)
        let byInt: [Int: String] = [10: "ten", 2: "two"]
        #expect(try encoded(byInt) == ["10": "ten", "2": "two"])
        #expect(try decoded([Int: String].self, ["10": "ten", "2": "two"]) == byInt)
    }

    @Test("raw-value enums are their raw values")
    func rawEnums() throws {
        #expect(try encoded([Color.red, .green]) == ["red", "green"])
        #expect(try decoded([Color].self, ["green"]) == [.green])
        #expect(try encoded(Level.high) == 9)
        #expect(try decoded(Level.self, 1) == .low)
        let error = decodeError(Color.self, "blue")
        #expect(error?.code == .badPayload)
        #expect(error?.at == "")
    }

    @Test("enums with associated values keep Swift's synthesized form")
    func associatedEnums() throws {
        let shapes: [Shape] = [.point, .circle(2), .rect(width: 3, height: 4), .label("x", .red)]
        let value = try encoded(shapes)
        #expect(value == [["point": [:]], ["circle": ["_0": 2.0]], ["rect": ["height": 4, "width": 3]],
                          ["label": ["_0": "x", "_1": "red"]]])
        #expect(try decoded([Shape].self, value) == shapes)
        let error = decodeError(Shape.self, ["rect": ["width": 3, "height": "4"]])
        #expect(error == YaiaError(.badPayload, "\"height\" must be an integer, not a string", at: "/rect/height"))
    }

    @Test("JSON inside a Codable type is copied as it is")
    func jsonInside() throws {
        // Keys equal under Unicode normalization stay apart; -0.0 and a
        // UInt64 beyond Int64 keep their exact form.
        let body: JSON = ["caf\u{E9}": 1, "cafe\u{301}": 2, "n": -0.0, "u": .uint(UInt64.max), "deep": [[.null, true]]]
        let e = Envelope(kind: "k", body: body, extra: ["x": 1], list: [1, "two", .null], byName: ["a": body])
        let value = try encoded(e)
        #expect(value == ["kind": "k", "body": body, "extra": ["x": 1], "list": [1, "two", .null], "byName": ["a": body]])
        #expect(value["body"]?.objectValue?.count == 5)
        #expect(try decoded(Envelope.self, value) == e)
        #expect(try encoded(body) == body)
        #expect(try decoded(JSON.self, body) == body)
        // A null JSON member that is Optional reads as nil, as for any Optional.
        #expect(try decoded(Envelope.self, ["kind": "k", "body": .null, "extra": .null, "list": [], "byName": [:]])
                == Envelope(kind: "k", body: .null, extra: nil, list: [], byName: [:]))
    }

    @Test("nested containers, unkeyed containers and super encoders")
    func containers() throws {
        let n = Nested(a: 1, b: ["x", "y"], c: true)
        let value = try encoded(n)
        #expect(value == ["outer": ["a": 1], "list": ["x", "y"], "base": true])
        #expect(try decoded(Nested.self, value) == n)
        #expect(try encoded([Pair(x: 1, y: 2)]) == [[1, 2]])
        #expect(try decoded([Pair].self, [[1, 2]]) == [Pair(x: 1, y: 2)])
    }

    @Test("members in key order whatever order they come in; the last of equal keys wins")
    func memberOrder() throws {
        // Past the in-place limit, a large dictionary in hash order is sorted once.
        for count in [3, 31, 32, 33, 200] {
            let d = Dictionary(uniqueKeysWithValues: (0..<count).map { ("k\($0)", $0) })
            let value = try encoded(d)
            #expect(value == .object(JSONObject(d.map { ($0.key, JSON($0.value)) })))
            #expect(value.objectValue?.keys == d.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        }
        #expect(try encoded(Rewritten(count: 40)) == .object(JSONObject((0..<40).map { ("k\($0)", JSON($0 + 100)) } + [("a", 2)])))
        #expect(try encoded(Rewritten(count: 3)) == ["a": 2, "k0": 100, "k1": 101, "k2": 102])
    }

    @Test("a type that writes nothing is an empty object")
    func empty() throws {
        #expect(try encoded(Empty()) == [:])
        #expect(try decoded(Empty.self, ["ignored": 1]) == Empty())
    }

    @Test("JSON(encoding:) and JSON.decode(_:code:at:)")
    func conveniences() throws {
        let value = try JSON(encoding: Address(street: "s", zip: "z"))
        #expect(value == ["street": "s", "zip": "z"])
        #expect(try value.decode(Address.self) == Address(street: "s", zip: "z"))
        let error = yaiaError { () throws(YaiaError) in try JSON.object(["street": 1]).decode(Address.self, code: .badArgs, at: "/args") }
        #expect(error == YaiaError(.badArgs, "\"street\" must be a string, not a number", at: "/args/street"))
    }
}

// MARK: - Numbers

@Suite("JSONValueDecoder: numbers")
struct CodingNumberTests {
    /// Every integer width: its bounds read back, one past them is refused.
    @Test("each integer width reads its bounds and refuses one past them")
    func integerRanges() throws {
        func check<I: FixedWidthInteger & Decodable & Encodable>(_: I.Type, below: JSON?, above: JSON,
                                                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try decoded(I.self, encoded(I.min)) == I.min, sourceLocation: sourceLocation)
            #expect(try decoded(I.self, encoded(I.max)) == I.max, sourceLocation: sourceLocation)
            for bad in [below, above].compactMap({ $0 }) {
                let e = decodeError([String: I].self, ["n": bad])
                #expect(e == YaiaError(.badPayload, "\"n\" must be an integer from \(I.min) to \(I.max), not \(bad)", at: "/n"),
                        sourceLocation: sourceLocation)
            }
        }
        try check(Int8.self, below: -129, above: 128)
        try check(Int16.self, below: -32769, above: 32768)
        try check(Int32.self, below: -2147483649, above: 2147483648)
        try check(Int64.self, below: nil, above: .uint(9223372036854775808))
        try check(Int.self, below: nil, above: .uint(9223372036854775808))
        try check(UInt8.self, below: -1, above: 256)
        try check(UInt16.self, below: -1, above: 65536)
        try check(UInt32.self, below: -1, above: 4294967296)
        try check(UInt64.self, below: -1, above: 1e20)
        try check(UInt.self, below: -1, above: 1e20)
        #expect(decodeError(UInt8.self, 300) == YaiaError(.badPayload, "the value must be an integer from 0 to 255, not 300", at: ""))
    }

    @Test("integers must be whole; whole doubles are integers")
    func exactness() throws {
        #expect(decodeError(Int.self, 1.5) == YaiaError(.badPayload, "the value must be a whole number, not 1.5", at: ""))
        #expect(decodeError([UInt8].self, [1, 2.25]) == YaiaError(.badPayload, "element 1 must be a whole number, not 2.25", at: "/1"))
        #expect(try decoded(Int.self, 1.0) == 1)
        #expect(try decoded(UInt8.self, 255.0) == 255)
        #expect(try decoded(Int64.self, -0.0) == 0)
        #expect(decodeError(Int64.self, 1e300) == YaiaError(.badPayload, "the value must be an integer from \(Int64.min) to \(Int64.max), not 1e+300", at: ""))
        #expect(decodeError(Int.self, "1")?.message == "the value must be an integer, not a string")
    }

    @Test("Double and Float read any number in range; Float is written as its shortest text")
    func floating() throws {
        #expect(try decoded(Double.self, 3) == 3)
        #expect(try decoded(Float.self, .double(0.1)) == Float(0.1))
        #expect(try decoded(Float.self, 7) == 7)
        #expect(try encoded(Float(0.1)) == .double(0.1))
        #expect(try decoded(Float.self, encoded(Float(0.1))) == Float(0.1))
        #expect(decodeError(Float.self, 1e300) == YaiaError(.badPayload, "the value must be a number within Float's range, not 1e+300", at: ""))
        #expect(decodeError(Double.self, true) == YaiaError(.badPayload, "the value must be a number, not a boolean", at: ""))
    }

    @Test("NaN and infinities are written as null")
    func nonFinite() throws {
        #expect(try encoded([Double.nan, .infinity, -.infinity, 1]) == [.null, .null, .null, 1])
        #expect(try encoded([Float.nan, .infinity]) == [.null, .null])
        #expect(try encoded(["x": Double.nan]) == ["x": .null])
    }
}

// MARK: - Errors

@Suite("JSONValueDecoder / JSONValueEncoder: errors")
struct CodingErrorTests {
    @Test("a wrong type: the code given and a pointer to the member")
    func wrongType() throws {
        var bad = try encoded(CodingRoundTripTests.person)
        if case .object(var o) = bad, case .array(var addresses)? = o["addresses"], case .object(var second) = addresses[1] {
            second["street"] = 5
            addresses[1] = .object(second)
            o["addresses"] = .array(addresses)
            bad = .object(o)
        }
        #expect(decodeError(Person.self, bad, code: .badState)
                == YaiaError(.badState, "\"street\" must be a string, not a number", at: "/addresses/1/street"))
        #expect(decodeError(Person.self, bad, at: "/payload")?.at == "/payload/addresses/1/street")
        #expect(decodeError(Person.self, "x") == YaiaError(.badPayload, "the value must be an object, not a string", at: ""))
        #expect(decodeError([Int].self, ["a": 1]) == YaiaError(.badPayload, "the value must be an array, not an object", at: ""))
        #expect(decodeError([Address].self, [1]) == YaiaError(.badPayload, "element 0 must be an object, not a number", at: "/0"))
        #expect(decodeError(Bool.self, .null) == YaiaError(.badPayload, "the value must be a boolean, not null", at: ""))
    }

    @Test("a missing member: needs \"name\", at the member")
    func missing() {
        #expect(decodeError(Address.self, [:]) == YaiaError(.badPayload, "needs \"street\"", at: "/street"))
        #expect(decodeError([String: Address].self, ["home": ["zip": "1"]], at: "/args")
                == YaiaError(.badPayload, "needs \"street\"", at: "/args/home/street"))
    }

    @Test("keys with / and ~ are escaped in pointers (RFC 6901)")
    func escaping() {
        let value: JSON = ["a/b": ["c~d": 1, "ok": "s"], "~1": ["e": "s"]]
        #expect(decodeError([String: [String: String]].self, value)
                == YaiaError(.badPayload, "\"c~d\" must be a string, not a number", at: "/a~1b/c~0d"))
        #expect(decodeError([String: Address].self, ["x/~y": [:]])
                == YaiaError(.badPayload, "needs \"street\"", at: "/x~1~0y/street"))
    }

    @Test("an unkeyed container read past its end")
    func pastEnd() {
        #expect(decodeError(Pair.self, [1]) == YaiaError(.badPayload, "needs element 1, has 1", at: "/1"))
        #expect(decodeError([Pair].self, [[1, 2], [3, "4"]])
                == YaiaError(.badPayload, "element 1 must be an integer, not a string", at: "/1/1"))
    }

    @Test("a DecodingError thrown by a type's own init(from:) is located by its coding path")
    func ownDecodingError() {
        #expect(decodeError([Percent].self, [["value": 5], ["value": 500]], code: .badArgs)
                == YaiaError(.badArgs, "a percentage is from 0 to 100", at: "/1/value"))
    }

    @Test("a failing encode(to:) is an internal error; the json default falls back to null")
    func encodingFailure() {
        let error = yaiaError { () throws(YaiaError) in try encoded(["a": [Broken()]]) }
        #expect(error?.code == .internal)
        #expect(Broken().json == .null)
        // JSON numbers have no 128-bit form here: an error, not a crash.
        #expect(yaiaError { () throws(YaiaError) in try encoded(Int128(1)) }?.code == .internal)
    }
}

// MARK: - A login scene written with Codable alone

/// The behaviour of `LoginState` (Sources/YaiaExamples/Login.swift), without
/// a line of JSON code: its state, view model and actions are Codable.
struct CodableLogin: SceneState, Codable {
    static let name = "test/codable-login"

    var email = ""
    var password = ""
    var isSubmitting = false
    var error: String?
    var user: JSON?

    enum Action: SceneAction, Decodable, Equatable {
        case emailChanged(String)
        case passwordChanged(String)
        case submit
        case loginSucceeded(user: JSON)
        case loginFailed(message: String?)
    }

    struct ViewModel: JSONRepresentable, Encodable, Equatable, Sendable {
        var email: String
        var canSubmit: Bool
        var isSubmitting: Bool
        var error: String?
    }

    struct Args: Decodable {
        var email: String?
    }

    init() {}

    init(args: JSON) throws(YaiaError) {
        email = try args.decode(Args.self, code: .badArgs).email ?? ""
    }

    var viewModel: ViewModel {
        ViewModel(email: email, canSubmit: email.utf8.contains(UInt8(ascii: "@")) && !password.isEmpty && !isSubmitting,
                  isSubmitting: isSubmitting, error: error)
    }

    mutating func reduce(_ action: Action) -> [Command] {
        switch action {
        case .emailChanged(let value):
            email = value
            return []
        case .passwordChanged(let value):
            password = value
            return []
        case .submit:
            if isSubmitting {
                error = "A login is already in progress"
                return []
            }
            guard email.utf8.contains(UInt8(ascii: "@")) else {
                error = "Enter a valid email address"
                return []
            }
            guard !password.isEmpty else {
                error = "Enter your password"
                return []
            }
            isSubmitting = true
            error = nil
            return [.effect(Effect(service: "auth", op: "login",
                                   args: ["email": .string(email), "password": .string(password)],
                                   then: "loginSucceeded", catch: "loginFailed"))]
        case .loginSucceeded(let user):
            isSubmitting = false
            self.user = user.isNull ? nil : user
            return [.route(.push("example/home", args: ["user": user]))]
        case .loginFailed(let message):
            isSubmitting = false
            error = message ?? "Login failed"
            return []
        }
    }
}

func codableLogin(email: String = "", password: String = "", isSubmitting: Bool = false,
                  error: String? = nil, user: JSON? = nil) -> CodableLogin {
    var s = CodableLogin()
    s.email = email
    s.password = password
    s.isSubmitting = isSubmitting
    s.error = error
    s.user = user
    return s
}

@Suite("A scene written with Codable alone")
struct CodableSceneTests {
    @Test("Flux actions map onto the enum's cases")
    func actions() throws {
        #expect(try typedAction(CodableLogin.self, #"{"type":"emailChanged","payload":"a@b.c"}"#) == .emailChanged("a@b.c"))
        #expect(try typedAction(CodableLogin.self, #"{"type":"submit"}"#) == .submit)
        #expect(try typedAction(CodableLogin.self, #"{"type":"submit","payload":null}"#) == .submit)
        // A case without values ignores whatever payload comes with it.
        #expect(try typedAction(CodableLogin.self, #"{"type":"submit","payload":[1,2]}"#) == .submit)
        #expect(try typedAction(CodableLogin.self, #"{"type":"loginSucceeded","payload":{"user":{"id":1}},"meta":5}"#)
                == .loginSucceeded(user: ["id": 1]))
        #expect(try typedAction(CodableLogin.self, #"{"type":"loginSucceeded","payload":{"user":null}}"#)
                == .loginSucceeded(user: .null))
        #expect(try typedAction(CodableLogin.self, #"{"type":"loginFailed","payload":{"code":"x","message":"No"},"error":true}"#)
                == .loginFailed(message: "No"))
        #expect(try typedAction(CodableLogin.self, #"{"type":"loginFailed","error":true}"#) == .loginFailed(message: nil))
        #expect(try typedAction(CodableLogin.self, #"{"type":"loginFailed","payload":{"code":"timeout"}}"#) == .loginFailed(message: nil))
    }

    static let refused: [(String, YaiaError)] = [
        (#"{"type":"nope"}"#, YaiaError(.unknownAction, "unknown action type \"nope\"", at: "/type")),
        (#"{"type":"_0"}"#, YaiaError(.unknownAction, "unknown action type \"_0\"", at: "/type")),
        (#"{"type":"emailChanged","payload":3}"#, YaiaError(.badPayload, "the payload must be a string, not a number", at: "/payload")),
        (#"{"type":"emailChanged"}"#, YaiaError(.badPayload, "the payload must be a string, not none", at: "/payload")),
        (#"{"type":"emailChanged","payload":null}"#, YaiaError(.badPayload, "the payload must be a string, not null", at: "/payload")),
        (#"{"type":"loginSucceeded","payload":{}}"#, YaiaError(.badPayload, "needs \"user\"", at: "/payload/user")),
        (#"{"type":"loginSucceeded"}"#, YaiaError(.badPayload, "needs \"user\"", at: "/payload/user")),
        (#"{"type":"loginSucceeded","payload":"u"}"#, YaiaError(.badPayload, "the payload must be an object, not a string", at: "/payload")),
        (#"{"type":"loginFailed","payload":{"message":7}}"#, YaiaError(.badPayload, "\"message\" must be a string, not a number", at: "/payload/message")),
    ]

    @Test("unknown types and bad payloads are errors located in the action", arguments: refused)
    func refusedActions(text: String, expected: YaiaError) throws {
        #expect(try actionError(CodableLogin.self, text) == expected)
    }

    @Test("the reducer, driven with values")
    func reducer() throws {
        let effect = Command.effect(Effect(service: "auth", op: "login", args: ["email": "a@b.c", "password": "hunter2"],
                                           then: "loginSucceeded", catch: "loginFailed"))
        Given(CodableLogin())
            .when(.emailChanged("a@b.c"), .passwordChanged("hunter2"))
            .then(state: codableLogin(email: "a@b.c", password: "hunter2"))
            .then(viewModel: ["canSubmit": true, "email": "a@b.c", "error": .null, "isSubmitting": false])
        Given(codableLogin(email: "a@b.c", password: "hunter2", error: "old"))
            .when(.submit)
            .then(state: codableLogin(email: "a@b.c", password: "hunter2", isSubmitting: true), commands: [effect])
            .then(viewModel: ["canSubmit": false, "email": "a@b.c", "error": .null, "isSubmitting": true])
        Given(codableLogin(email: "a@b.c", password: "hunter2", isSubmitting: true))
            .when(.loginSucceeded(user: ["id": 1]))
            .then(state: codableLogin(email: "a@b.c", password: "hunter2", user: ["id": 1]),
                  commands: [.route(.push("example/home", args: ["user": ["id": 1]]))])
        Given(codableLogin(email: "a@b.c", password: "hunter2", isSubmitting: true))
            .when(.loginFailed(message: nil))
            .then(state: codableLogin(email: "a@b.c", password: "hunter2", error: "Login failed"))
        #expect(codableLogin(email: "a", error: "e").viewModel
                == CodableLogin.ViewModel(email: "a", canSubmit: false, isSubmitting: false, error: "e"))
    }

    @Test("the state's JSON form reads back through init(json:)")
    func stateRoundTrip() throws {
        let states = [CodableLogin(), codableLogin(email: "a@b.c", password: "p", isSubmitting: true, error: "e", user: ["id": [1, 2]])]
        for s in states {
            #expect(try CodableLogin(json: s.json) == s)
        }
        #expect(codableLogin(email: "a@b.c").json
                == ["email": "a@b.c", "error": .null, "isSubmitting": false, "password": "", "user": .null])
        let error = yaiaError { () throws(YaiaError) in try CodableLogin(json: ["email": "", "password": "", "isSubmitting": "no"]) }
        #expect(error == YaiaError(.badState, "\"isSubmitting\" must be a boolean, not a string", at: "/isSubmitting"))
        #expect(yaiaError { () throws(YaiaError) in try CodableLogin(json: ["email": "", "password": ""]) }
                == YaiaError(.badState, "needs \"isSubmitting\"", at: "/isSubmitting"))
    }

    @Test("arguments through an Args struct")
    func args() throws {
        #expect(try CodableLogin(args: ["email": "a@b.c"]) == codableLogin(email: "a@b.c"))
        #expect(try CodableLogin(args: [:]) == CodableLogin())
        #expect(yaiaError { () throws(YaiaError) in try CodableLogin(args: ["email": 1]) }
                == YaiaError(.badArgs, "\"email\" must be a string, not a number", at: "/email"))
    }

    /// The same inputs give the same JSON, byte for byte, as the hand-written scene.
    @Test("behaves like the hand-written example/login, byte for byte")
    func sameAsHandWritten() throws {
        let inputs = [
            #"{"type":"submit"}"#,
            #"{"type":"emailChanged","payload":"a@b.c"}"#,
            #"{"type":"submit"}"#,
            #"{"type":"passwordChanged","payload":"hunter2"}"#,
            #"{"type":"submit"}"#,
            #"{"type":"submit"}"#,
            #"{"type":"loginFailed","payload":{"message":"Wrong password"},"error":true}"#,
            #"{"type":"submit"}"#,
            #"{"type":"loginFailed","error":true}"#,
            #"{"type":"submit"}"#,
            #"{"type":"loginSucceeded","payload":{"user":{"id":7,"name":"Ada"}}}"#,
        ]
        var typed = SceneValue(try CodableLogin(args: ["email": "x"]))
        var handWritten = SceneValue(try LoginState(args: ["email": "x"]))
        for text in inputs {
            let a = try action(text)
            #expect(try typed.reduce(a) == handWritten.reduce(a), "\(text)")
            #expect(typed.json.serialized() == handWritten.json.serialized(), "\(text)")
            #expect(typed.viewModel.serialized() == handWritten.viewModel.serialized(), "\(text)")
        }
        let restored = try SceneType(CodableLogin.self).restore(state: typed.json)
        #expect(restored == typed)
    }
}

// MARK: - Other shapes of actions

enum Arrow: String, SceneAction, Decodable {
    case up, down
}

enum Board: SceneAction, Decodable, Equatable {
    case moved(Int, Int)
    case placed(Address)
    case named(first: String, last: String?)
    case counted(UInt8)
    case tagged([String])
}

@Suite("SceneAction defaults: other shapes of actions")
struct CodableActionShapeTests {
    @Test("a raw-value enum takes the type as its raw value and ignores the payload")
    func rawValue() throws {
        #expect(try Arrow(Action("up")) == .up)
        #expect(try Arrow(Action("down", payload: ["any": 1])) == .down)
        #expect(yaiaError { () throws(YaiaError) in try Arrow(Action("left")) }
                == YaiaError(.unknownAction, "unknown action type \"left\"", at: "/type"))
    }

    @Test("several unlabeled values are the elements of an array payload")
    func positional() throws {
        #expect(try Board(Action("moved", payload: [3, 4])) == .moved(3, 4))
        // A single unlabeled value that is an array is still the whole payload.
        #expect(try Board(Action("tagged", payload: ["a", "b"])) == .tagged(["a", "b"]))
        #expect(yaiaError { () throws(YaiaError) in try Board(Action("tagged", payload: ["a", 1])) }
                == YaiaError(.badPayload, "element 1 must be a string, not a number", at: "/payload/1"))
        #expect(yaiaError { () throws(YaiaError) in try Board(Action("moved", payload: [3])) }
                == YaiaError(.badPayload, "needs element 1", at: "/payload/1"))
        #expect(yaiaError { () throws(YaiaError) in try Board(Action("moved", payload: [3, "4"])) }
                == YaiaError(.badPayload, "element 1 must be an integer, not a string", at: "/payload/1"))
        // Not an array: the first value is read from the whole payload.
        #expect(yaiaError { () throws(YaiaError) in try Board(Action("moved", payload: ["x": 1])) }
                == YaiaError(.badPayload, "the payload must be an integer, not an object", at: "/payload"))
    }

    @Test("a struct payload, labeled members, integer ranges")
    func shapes() throws {
        #expect(try Board(Action("placed", payload: ["street": "s", "zip": "z"])) == .placed(Address(street: "s", zip: "z")))
        #expect(yaiaError { () throws(YaiaError) in try Board(Action("placed", payload: ["street": ["s"]])) }
                == YaiaError(.badPayload, "\"street\" must be a string, not an array", at: "/payload/street"))
        #expect(yaiaError { () throws(YaiaError) in try Board(Action("placed")) }
                == YaiaError(.badPayload, "the payload must be an object, not none", at: "/payload"))
        #expect(try Board(Action("named", payload: ["first": "Ada"])) == .named(first: "Ada", last: nil))
        #expect(try Board(Action("named", payload: ["first": "Ada", "last": "L"])) == .named(first: "Ada", last: "L"))
        #expect(try Board(Action("counted", payload: 255)) == .counted(255))
        #expect(yaiaError { () throws(YaiaError) in try Board(Action("counted", payload: 256)) }
                == YaiaError(.badPayload, "the payload must be an integer from 0 to 255, not 256", at: "/payload"))
        #expect(yaiaError { () throws(YaiaError) in try Board(Action("counted", payload: 2.5)) }
                == YaiaError(.badPayload, "the payload must be a whole number, not 2.5", at: "/payload"))
        #expect(yaiaError { () throws(YaiaError) in try Board(Action("Moved", payload: [1, 2])) }?.code == .unknownAction)
    }
}
