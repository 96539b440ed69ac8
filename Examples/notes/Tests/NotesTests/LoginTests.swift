@testable import Notes
import Testing
import YaiaKit
import YaiaTesting

@Suite("notes/login")
struct LoginTests {
    @Test("a valid form logs in through auth.login and pushes the user's notes")
    func logsIn() throws {
        var test = try SceneTest(LoginState.self)
        test.send(.emailChanged(" ada@example.com ")) { $0.email = " ada@example.com " }
        test.send(.passwordChanged("hunter2")) { $0.password = "hunter2" }
        test.expectViewModel { $0.canSubmit && $0.emailError == nil }
        test.send(.submit) { $0.isSubmitting = true }
        let login = test.receiveEffect(Effect(service: "auth", op: "login",
                                              args: ["email": "ada@example.com", "password": "hunter2"],
                                              then: "loginSucceeded", catch: "loginFailed", options: .init(timeout: 10)))
        test.expectViewModel { !$0.canSubmit && $0.isSubmitting }
        // A second tap while the first is in flight sends nothing.
        test.send(.submit)
        test.resolve(login, with: .success(["user": ["email": "ada@example.com"]])) {
            $0.isSubmitting = false
            $0.password = ""
        }
        test.expectRoute(.push("notes/list", args: ["user": ["email": "ada@example.com"]]))
        test.finish()
    }

    @Test("the form is checked before anything is sent")
    func validation() {
        var test = SceneTest(LoginState())
        test.expectViewModel(.init(email: "", emailError: nil, canSubmit: false, isSubmitting: false, error: nil))
        test.send(.submit) { $0.error = "Enter your email address" }
        test.send(.emailChanged("ada")) {
            $0.email = "ada"
            $0.error = nil
        }
        test.expectViewModel { $0.emailError == "Enter a valid email address" }
        test.send(.submit) { $0.error = "Enter a valid email address" }
        test.send(.emailChanged("a da@example.com")) {
            $0.email = "a da@example.com"
            $0.error = nil
        }
        test.expectViewModel { $0.emailError == "Enter a valid email address" }
        test.send(.emailChanged("ada@example.com")) { $0.email = "ada@example.com" }
        test.send(.submit) { $0.error = "Enter your password" }
        test.expectViewModel(.init(email: "ada@example.com", emailError: nil, canSubmit: false, isSubmitting: false,
                                   error: "Enter your password"))
        test.finish()
    }

    @Test("a refused login shows the service's message; a time-out says so")
    func failures() {
        var test = SceneTest(LoginState())
        test.send(.emailChanged("ada@example.com")) { $0.email = "ada@example.com" }
        test.send(.passwordChanged("letmein")) { $0.password = "letmein" }
        test.send(.submit) { $0.isSubmitting = true }
        var login = test.receiveEffect(service: "auth", op: "login")
        test.resolve(login, with: .failure(["message": "Wrong email or password"])) {
            $0.isSubmitting = false
            $0.error = "Login failed: Wrong email or password"
        }
        test.send(.submit) {
            $0.isSubmitting = true
            $0.error = nil
        }
        login = test.receiveEffect(service: "auth", op: "login")
        test.resolve(login, with: .failure(["code": "timeout"])) {
            $0.isSubmitting = false
            $0.error = "Login failed: the service did not answer in time"
        }
        test.finish()
    }

    @Test("actions are read in their Flux form, as the runtime hands them over")
    func fluxForm() {
        var test = SceneTest(LoginState())
        test.send("emailChanged", payload: "ada@example.com") { $0.email = "ada@example.com" }
        test.send("passwordChanged", payload: "hunter2") { $0.password = "hunter2" }
        test.send("submit") { $0.isSubmitting = true }
        let login = test.receiveEffect(service: "auth", op: "login")
        // An outcome is delivered as {"type": "loginFailed", "payload": ..., "error": true}.
        test.resolve(login, with: .failure(["message": "nope", "code": "denied"])) {
            $0.isSubmitting = false
            $0.error = "Login failed: nope"
        }
        test.finish()

        #expect(thrown { try LoginState.Action(Action("dance")) }?.code == .unknownAction)
        let bad = thrown { try LoginState.Action(Action("emailChanged", payload: 42)) }
        #expect(bad?.code == .badPayload)
        #expect(bad?.at == "/payload")
        #expect(thrown { try LoginState.Action(Action("loginSucceeded", payload: ["user": ["name": "Ada"]])) }?.at == "/payload/user/email")
    }

    @Test("open arguments: an email to start with; anything else is bad_args")
    func args() throws {
        #expect(try LoginState(args: [:]) == LoginState())
        #expect(try LoginState(args: ["email": "ada@example.com"]).email == "ada@example.com")
        let bad = thrown { try LoginState(args: ["email": 7]) }
        #expect(bad?.code == .badArgs)
        #expect(bad?.at == "/email")
        #expect(thrown { try LoginState(args: "ada") }?.code == .badArgs)
    }

    @Test("the state survives its JSON form")
    func snapshot() throws {
        var state = LoginState()
        state.email = "ada@example.com"
        state.error = "Login failed"
        #expect(roundTrips(state))
        #expect(state.json == ["email": "ada@example.com", "password": "", "isSubmitting": false, "error": "Login failed"])
        #expect(thrown { try LoginState(json: ["email": 1]) }?.code == .badState)
    }
}
