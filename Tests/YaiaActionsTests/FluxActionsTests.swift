import Testing
@testable import YaiaCore
import YaiaActions

// @FluxActions against the Decodable default: the enums below are both, so
// that one type reads every action both ways (the generated init and
// FluxDecoder), and the two must agree on results and errors alike.

struct User: Codable, Equatable, Sendable {
    var name: String
    var age: Int?
    var tags: [String]
}

@FluxActions
enum Shapes: SceneAction, Decodable, Equatable {
    case emailChanged(String)
    case submit
    case flag(Bool)
    case count(Int)
    case big(Int64)
    case ratio(Double)
    case small(UInt8)
    case single(Float)
    case raw(JSON)
    case maybe(String?)
    case maybeInt(Int?)
    case maybeJSON(JSON?)
    case maybeBool(Bool?)
    case user(User)
    case maybeUser(User?)
    case list([String])
    case loginSucceeded(user: User)
    case loginFailed(code: String?, message: String?)
    case named(name: String, count: Int, ratio: Double, flag: Bool, raw: JSON, opt: Int64?)
    case moved(Int, Int)
    case pair(String?, User)
    case triple(Double, Bool?, JSON)
    case `default`
    case `switch`(String)
}

@FluxActions
enum Raw: String, SceneAction, Decodable, Equatable {
    case first
    case second = "2nd"
}

@FluxActions
public enum PublicActions: SceneAction, Equatable {
    case go(String)
}

@FluxActions
private enum PrivateActions: SceneAction, Equatable {
    case go(to: Int)
}

let userJSON: JSON = ["name": "Ann", "age": 3, "tags": ["a", "b"]]

/// Payloads of every shape, right and wrong for every case above.
let payloads: [JSON?] = {
    let scalars: [JSON] = [
        .null, true, false, 0, 1, -1, .int(Int64.max), .int(Int64.min), .uint(UInt64.max), .uint(5),
        1.0, 1.5, -0.0, 255, 256, 1e300, "", "a@b.c", "\"quoted\"\n",
    ]
    let users: [JSON] = [
        userJSON,
        ["name": "Bo", "tags": []],
        ["name": "Bo", "age": .null, "tags": ["x"]],
        ["name": 3, "tags": []],
        ["tags": []],
        ["name": "Bo", "age": 1.5, "tags": []],
        ["name": "Bo", "tags": [1]],
        ["name": "Bo", "tags": .null],
    ]
    var members: [JSON] = [
        [:],
        ["user": userJSON],
        ["user": .null],
        ["user": "Ann"],
        ["code": "E1"],
        ["code": "E1", "message": "no"],
        ["code": .null, "message": 4],
        ["code": 1],
        ["name": "n", "count": 2, "ratio": 0.5, "flag": true, "raw": [1, 2], "opt": 9],
        ["name": "n", "count": 2, "ratio": 1, "flag": true, "raw": .null],
        ["name": "n", "count": 2.5, "ratio": 1, "flag": true, "raw": .null],
        ["name": "n", "count": 2, "ratio": "x", "flag": true, "raw": .null],
        ["name": "n", "count": 2, "ratio": 1, "flag": true],
        ["name": "n", "count": 2, "ratio": 1, "flag": true, "raw": 1, "opt": .uint(UInt64.max)],
        ["a/b~c": 1, "user": ["name": "x", "tags": ["y"], "age": "old"]],
    ]
    members += users.map { ["user": $0] }
    var arrays: [JSON] = [
        [], [1], [1, 2], [1, 2, 3], ["a", 2], [1, "b"], [.null, userJSON], ["s", userJSON], ["s"],
        [1.5, .null, "x"], [2, true, [1]], [0, "no"], [.null, .null, .null], [["a"]],
        ["a", "b"], [userJSON],
    ]
    arrays += users.map { ["s", $0] }
    return [nil] + scalars + users + members + arrays
}()

let types = [
    "emailChanged", "submit", "flag", "count", "big", "ratio", "small", "single", "raw", "maybe", "maybeInt",
    "maybeJSON", "maybeBool", "user", "maybeUser", "list", "loginSucceeded", "loginFailed", "named", "moved",
    "pair", "triple", "default", "switch", "unknown", "", "_0", "Submit",
]

func both<A: SceneAction & Decodable & Equatable>(_: A.Type, _ action: Action) -> (Result<A, YaiaError>, Result<A, YaiaError>) {
    let generated = Result { () throws(YaiaError) -> A in try A(action) }
    let decoded = Result { () throws(YaiaError) -> A in try FluxDecoder.decode(A.self, from: action) }
    return (generated, decoded)
}

@Test func generatedReaderAgreesWithDecodableDefault() {
    var compared = 0, failures = 0
    for type in types {
        for payload in payloads {
            let action = Action(type, payload: payload)
            let (generated, decoded) = both(Shapes.self, action)
            #expect(generated == decoded, "\(type) \(payload.map { "\($0)" } ?? "no payload")")
            compared += 1
            if case .failure = decoded { failures += 1 }
        }
    }
    // Both paths were exercised: successes and errors.
    #expect(compared > 1500)
    #expect(failures > 500 && failures < compared - 200)
}

@Test func rawValueEnumAgrees() throws {
    for type in ["first", "second", "2nd", "third", ""] {
        for payload in payloads.prefix(10) {
            let (generated, decoded) = both(Raw.self, Action(type, payload: payload))
            #expect(generated == decoded)
        }
    }
    #expect(try Raw(Action("2nd")) == .second)
}

@Test func readsTheUsualShapes() throws {
    #expect(try Shapes(Action("emailChanged", payload: "a@b.c")) == .emailChanged("a@b.c"))
    #expect(try Shapes(Action("submit", payload: [1, 2])) == .submit)
    #expect(try Shapes(Action("loginSucceeded", payload: ["user": userJSON]))
        == .loginSucceeded(user: User(name: "Ann", age: 3, tags: ["a", "b"])))
    #expect(try Shapes(Action("loginFailed")) == .loginFailed(code: nil, message: nil))
    #expect(try Shapes(Action("moved", payload: [3, 4])) == .moved(3, 4))
    #expect(try Shapes(Action("default")) == .default)
    #expect(try Shapes(Action("switch", payload: "x")) == .switch("x"))
    #expect(try PublicActions(Action("go", payload: "home")) == .go("home"))
    #expect(try PrivateActions(Action("go", payload: ["to": 2])) == .go(to: 2))
}

@Test func errors() {
    func error(_ action: Action) -> YaiaError? {
        do { _ = try Shapes(action); return nil } catch { return error }
    }
    #expect(error(Action("nope")) == YaiaError(.unknownAction, "unknown action type \"nope\"", at: "/type"))
    #expect(error(Action("emailChanged")) == YaiaError(.badPayload, "the payload must be a string, not none", at: "/payload"))
    #expect(error(Action("emailChanged", payload: 3)) == YaiaError(.badPayload, "the payload must be a string, not a number", at: "/payload"))
    #expect(error(Action("loginSucceeded", payload: [:])) == YaiaError(.badPayload, "needs \"user\"", at: "/payload/user"))
    #expect(error(Action("loginSucceeded", payload: ["user": ["name": 1, "tags": []]]))?.at == "/payload/user/name")
    #expect(error(Action("moved", payload: [3])) == YaiaError(.badPayload, "needs element 1", at: "/payload/1"))
    #expect(error(Action("count", payload: 1.5))?.code == .badPayload)
}
