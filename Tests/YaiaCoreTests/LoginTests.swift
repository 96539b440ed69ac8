import Testing
import YaiaCore
import YaiaExamples
import YaiaKit

/// Builds a LoginState field by field (its memberwise init is not public).
func login(email: String = "", password: String = "", isSubmitting: Bool = false,
           error: String? = nil, user: JSON? = nil) -> LoginState {
    var s = LoginState()
    s.email = email
    s.password = password
    s.isSubmitting = isSubmitting
    s.error = error
    s.user = user
    return s
}

let authEffect = Command.effect(Effect(
    service: "auth", op: "login", args: ["email": "a@b.c", "password": "hunter2"],
    then: "loginSucceeded", catch: "loginFailed"))

@Suite("example/login: reducer")
struct LoginReducerTests {
    @Test("initial state, its JSON and view model")
    func initial() {
        let s = LoginState()
        #expect(s == login())
        #expect(LoginState.name == "example/login")
        #expect(s.json.serialized() == "{\"email\":\"\",\"error\":null,\"isSubmitting\":false,\"password\":\"\",\"user\":null}")
        #expect(s.viewModel.json.serialized() == "{\"canSubmit\":false,\"email\":\"\",\"error\":null,\"isSubmitting\":false}")
    }

    @Test("emailChanged sets the email")
    func emailChanged() {
        Given(LoginState())
            .when(.emailChanged("a@b.c"))
            .then(state: login(email: "a@b.c"))
            .then(viewModel: ["canSubmit": false, "email": "a@b.c", "error": .null, "isSubmitting": false])
    }

    @Test("passwordChanged sets the password; valid form can submit")
    func passwordChanged() {
        Given(login(email: "a@b.c"))
            .when(.passwordChanged("hunter2"))
            .then(state: login(email: "a@b.c", password: "hunter2"))
            .then(viewModel: ["canSubmit": true, "email": "a@b.c", "error": .null, "isSubmitting": false])
    }

    @Test("submit on a valid, idle form: submitting, one auth effect")
    func submitValid() {
        Given(login(email: "a@b.c", password: "hunter2"))
            .when(.submit)
            .then(state: login(email: "a@b.c", password: "hunter2", isSubmitting: true), commands: [authEffect])
            .then(viewModel: ["canSubmit": false, "email": "a@b.c", "error": .null, "isSubmitting": true])
    }

    @Test("submit clears a previous error")
    func submitClearsError() {
        Given(login(email: "a@b.c", password: "hunter2", error: "Login failed"))
            .when(.submit)
            .then(state: login(email: "a@b.c", password: "hunter2", isSubmitting: true), commands: [authEffect])
    }

    static let invalidSubmits: [(LoginState, LoginState)] = [
        // No @ in the email.
        (login(email: "ab.c", password: "hunter2"),
         login(email: "ab.c", password: "hunter2", error: "Enter a valid email address")),
        // Empty email (no @) and empty password: the email is reported first.
        (login(), login(error: "Enter a valid email address")),
        // Empty password.
        (login(email: "a@b.c"), login(email: "a@b.c", error: "Enter your password")),
        // Already submitting, even with a valid form.
        (login(email: "a@b.c", password: "hunter2", isSubmitting: true),
         login(email: "a@b.c", password: "hunter2", isSubmitting: true, error: "A login is already in progress")),
        // Already submitting wins over invalid input.
        (login(isSubmitting: true), login(isSubmitting: true, error: "A login is already in progress")),
    ]

    @Test("invalid submits: no effect, the exact error", arguments: invalidSubmits)
    func submitInvalid(given: LoginState, expected: LoginState) {
        Given(given).when(.submit).then(state: expected, commands: [])
        #expect(expected.viewModel.canSubmit == false)
        #expect(expected.viewModel.json["error"] == JSON(expected.error))
    }

    @Test("loginSucceeded: idle, user kept, route to example/home")
    func succeeded() {
        let user: JSON = ["email": "a@b.c", "id": 7]
        Given(login(email: "a@b.c", password: "hunter2", isSubmitting: true))
            .when(.loginSucceeded(user: user))
            .then(state: login(email: "a@b.c", password: "hunter2", user: user),
                  commands: [.route(.push("example/home", args: ["user": user]))])
            .then(viewModel: ["canSubmit": true, "email": "a@b.c", "error": .null, "isSubmitting": false])
    }

    @Test("loginFailed: idle, error shown")
    func failed() {
        Given(login(email: "a@b.c", password: "hunter2", isSubmitting: true))
            .when(.loginFailed(message: "Wrong password"))
            .then(state: login(email: "a@b.c", password: "hunter2", error: "Wrong password"))
            .then(viewModel: ["canSubmit": true, "email": "a@b.c", "error": "Wrong password", "isSubmitting": false])
    }

    @Test("a whole session: type, submit, fail, retry, succeed")
    func session() {
        let user: JSON = ["email": "a@b.c"]
        Given(LoginState())
            .when(.emailChanged("a@b.c"), .passwordChanged("wrong"), .submit,
                  .loginFailed(message: "no"), .passwordChanged("hunter2"), .submit, .loginSucceeded(user: user))
            .then(state: login(email: "a@b.c", password: "hunter2", user: user),
                  commands: [
                      .effect(Effect(service: "auth", op: "login", args: ["email": "a@b.c", "password": "wrong"],
                                     then: "loginSucceeded", catch: "loginFailed")),
                      authEffect,
                      .route(.push("example/home", args: ["user": user])),
                  ])
    }

    @Test("the reducer is deterministic")
    func deterministic() {
        let actions: [LoginState.Action] = [.emailChanged("x@y"), .passwordChanged("p"), .submit, .submit]
        var a = LoginState()
        var b = LoginState()
        let ca = actions.flatMap { a.reduce($0) }
        let cb = actions.flatMap { b.reduce($0) }
        #expect(a == b)
        #expect(ca == cb)
        #expect(a.json.serializedBytes() == b.json.serializedBytes())
    }
}

@Suite("example/login: actions from JSON")
struct LoginActionTests {
    static let readable: [(String, LoginState.Action)] = [
        ("{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}", .emailChanged("a@b.c")),
        ("{\"type\":\"passwordChanged\",\"payload\":\"\"}", .passwordChanged("")),
        ("{\"type\":\"submit\"}", .submit),
        ("{\"type\":\"submit\",\"payload\":{\"ignored\":1}}", .submit),
        ("{\"type\":\"loginSucceeded\",\"payload\":{\"user\":{\"email\":\"a@b.c\"}}}", .loginSucceeded(user: ["email": "a@b.c"])),
        ("{\"type\":\"loginSucceeded\",\"payload\":{\"user\":1,\"extra\":2}}", .loginSucceeded(user: 1)),
        ("{\"type\":\"loginFailed\",\"payload\":{\"message\":\"denied\"}}", .loginFailed(message: "denied")),
        ("{\"type\":\"loginFailed\",\"payload\":\"denied\",\"error\":true}", .loginFailed(message: "denied")),
        // Without a string message: the default text.
        ("{\"type\":\"loginFailed\",\"payload\":{}}", .loginFailed(message: "Login failed")),
        ("{\"type\":\"loginFailed\",\"payload\":{\"message\":5}}", .loginFailed(message: "Login failed")),
        ("{\"type\":\"loginFailed\",\"payload\":{\"code\":\"bad_result\"},\"error\":true}", .loginFailed(message: "Login failed")),
        ("{\"type\":\"loginFailed\"}", .loginFailed(message: "Login failed")),
        ("{\"type\":\"loginFailed\",\"payload\":null}", .loginFailed(message: "Login failed")),
    ]

    @Test("reads every action", arguments: readable)
    func reads(text: String, expected: LoginState.Action) throws {
        #expect(try typedAction(LoginState.self, text) == expected)
    }

    static let refused: [(String, ErrorCode, String)] = [
        ("{\"type\":\"logout\"}", .unknownAction, "/type"),
        ("{\"type\":\"EmailChanged\",\"payload\":\"x\"}", .unknownAction, "/type"),
        ("{\"type\":\"emailChanged\"}", .badPayload, "/payload"),
        ("{\"type\":\"emailChanged\",\"payload\":5}", .badPayload, "/payload"),
        ("{\"type\":\"emailChanged\",\"payload\":null}", .badPayload, "/payload"),
        ("{\"type\":\"passwordChanged\",\"payload\":[\"x\"]}", .badPayload, "/payload"),
        ("{\"type\":\"loginSucceeded\"}", .badPayload, "/payload"),
        ("{\"type\":\"loginSucceeded\",\"payload\":\"me\"}", .badPayload, "/payload"),
        ("{\"type\":\"loginSucceeded\",\"payload\":{}}", .badPayload, "/payload/user"),
        ("{\"type\":\"loginFailed\",\"payload\":5}", .badPayload, "/payload"),
        ("{\"type\":\"loginFailed\",\"payload\":[\"no\"]}", .badPayload, "/payload"),
        ("{\"type\":\"loginFailed\",\"payload\":true}", .badPayload, "/payload"),
    ]

    @Test("refuses unknown types and wrong payloads, locating the fault", arguments: refused)
    func refuses(text: String, code: ErrorCode, at: String) throws {
        let error = try actionError(LoginState.self, text)
        #expect(error?.code == code)
        #expect(error?.at == at)
    }
}

@Suite("example/login: open arguments and state JSON")
struct LoginStateJSONTests {
    @Test("no arguments: the initial state")
    func emptyArgs() throws {
        #expect(try LoginState(args: [:]) == LoginState())
        // Unknown arguments are ignored.
        #expect(try LoginState(args: ["other": 1]) == LoginState())
        #expect(try LoginState(args: ["email": .null]) == LoginState())
    }

    @Test("{\"email\": ...} prefills the email")
    func prefill() throws {
        let s = try LoginState(args: ["email": "a@b.c"])
        #expect(s == login(email: "a@b.c"))
        #expect(s.viewModel.json == ["canSubmit": false, "email": "a@b.c", "error": .null, "isSubmitting": false])
        #expect(s.viewModel.email == "a@b.c")
        #expect(s.viewModel.canSubmit == false)
    }

    static let badArgsCases: [(JSON, String?)] = [
        (["email": 5], "/email"),
        (["email": ["a@b.c"]], "/email"),
        (["email": true], "/email"),
        ([], nil),
        ("a@b.c", nil),
        (.null, nil),
        (1, nil),
    ]

    @Test("bad arguments give bad_args", arguments: badArgsCases)
    func badArgs(args: JSON, at: String?) {
        let error = yaiaError { () throws(YaiaError) in try LoginState(args: args) }
        #expect(error?.code == .badArgs)
        #expect(error?.at == at)
    }

    static let states: [LoginState] = [
        LoginState(),
        login(email: "a@b.c", password: "hunter2"),
        login(email: "a@b.c", password: "hunter2", isSubmitting: true),
        login(email: "x", error: "Enter a valid email address"),
        login(email: "é😀\"\n", password: "p", user: ["email": "a@b.c", "roles": [1, 2]]),
        login(user: "someone"),
    ]

    @Test("state JSON round-trips through init(json:)", arguments: states)
    func roundTrip(state: LoginState) throws {
        #expect(try LoginState(json: state.json) == state)
        #expect(try LoginState(json: JSONParser.parse(state.json.serialized())) == state)
    }

    @Test("every state the reducer reaches round-trips, including a null user")
    func reachableRoundTrip() throws {
        var s = login(email: "a@b.c", password: "hunter2", isSubmitting: true)
        _ = s.reduce(try typedAction(LoginState.self, "{\"type\":\"loginSucceeded\",\"payload\":{\"user\":null}}"))
        // A user that is JSON null is stored as .some(.null) but read back as nil.
        let restored = try LoginState(json: s.json)
        #expect(restored == s)
        
        // What is observable from outside does survive.
        #expect(try LoginState(json: s.json).json == s.json)
    }

    static let badStates: [JSON] = [
        [],
        "state",
        ["password": "", "isSubmitting": false],
        ["email": 1, "password": "", "isSubmitting": false],
        ["email": "", "isSubmitting": false],
        ["email": "", "password": "", "isSubmitting": "no"],
        ["email": "", "password": ""],
        ["email": "", "password": "", "isSubmitting": false, "error": 5],
    ]

    @Test("malformed state JSON gives bad_state", arguments: badStates)
    func badState(value: JSON) {
        #expect(yaiaError { () throws(YaiaError) in try LoginState(json: value) }?.code == .badState)
    }
}
