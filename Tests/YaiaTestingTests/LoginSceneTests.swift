import Testing
import YaiaExamples
import YaiaKit
import YaiaTesting

@Suite("SceneTest drives example/login")
struct LoginSceneTests {
    static let user: JSON = ["email": "a@b.c", "id": 1]

    @Test("typing, submitting, the auth effect, success and the route to home")
    func success() {
        var test = SceneTest(LoginState())
        test.send(.emailChanged("a@b.c")) { $0.email = "a@b.c" }
        test.expectViewModel { !$0.canSubmit && $0.email == "a@b.c" }
        test.send("passwordChanged", payload: "hunter2") { $0.password = "hunter2" }
        test.expectViewModel { $0.canSubmit }
        test.send(.submit) { $0.isSubmitting = true }
        test.expectViewModel { !$0.canSubmit && $0.isSubmitting }
        let login = test.receiveEffect(service: "auth", op: "login", args: ["email": "a@b.c", "password": "hunter2"])
        #expect(login.index == 0)
        #expect(login.effect.then == "loginSucceeded")
        #expect(login.effect.catch == "loginFailed")
        #expect(test.pendingEffects == [login])
        test.resolve(login, with: .success(["user": Self.user])) {
            $0.isSubmitting = false
            $0.user = Self.user
        }
        test.expectRoute(.push("example/home", args: ["user": Self.user]))
        #expect(test.pendingEffects.isEmpty)
        test.finish()
        #expect(test.failures.isEmpty)
        #expect(test.state.user == Self.user)
    }

    @Test("validation errors: no effect, the exact error, until the form is valid")
    func validation() throws {
        var test = try SceneTest(LoginState.self, args: ["email": "ab.c"])
        #expect(test.state.email == "ab.c")
        test.send(.submit) { $0.error = "Enter a valid email address" }
        test.send(.emailChanged("a@b.c")) { $0.email = "a@b.c" }
        test.send(.submit) { $0.error = "Enter your password" }
        test.expectViewModel { $0.error == "Enter your password" && !$0.canSubmit }
        test.send(.passwordChanged("pw")) { $0.password = "pw" }
        test.send(.submit) {
            $0.isSubmitting = true
            $0.error = nil
        }
        let login = test.receiveEffect(Effect(service: "auth", op: "login", args: ["email": "a@b.c", "password": "pw"],
                                              then: "loginSucceeded", catch: "loginFailed"))
        // A second submit while the first is in flight emits nothing.
        test.send(.submit) { $0.error = "A login is already in progress" }
        test.resolve(login, with: .failure("Try again later")) {
            $0.isSubmitting = false
            $0.error = "Try again later"
        }
        test.finish()
        #expect(test.failures.isEmpty)
    }

    @Test("failure, then a retry that succeeds")
    func failureThenRetry() {
        var test = SceneTest(LoginState())
        test.send(.emailChanged("a@b.c")) { $0.email = "a@b.c" }
        test.send(.passwordChanged("wrong")) { $0.password = "wrong" }
        test.send(.submit) { $0.isSubmitting = true }
        let first = test.receiveEffect(service: "auth", op: "login", args: ["email": "a@b.c", "password": "wrong"])
        test.resolve(first, with: .failure(["message": "Wrong password"])) {
            $0.isSubmitting = false
            $0.error = "Wrong password"
        }
        test.expectViewModel { $0.error == "Wrong password" && $0.canSubmit }
        test.send(.passwordChanged("hunter2")) { $0.password = "hunter2" }
        test.send(.submit) {
            $0.isSubmitting = true
            $0.error = nil
        }
        let second = test.receiveEffect(service: "auth", op: "login")
        #expect(second.index == 1)
        test.resolve(second, with: .success(["user": Self.user])) {
            $0.isSubmitting = false
            $0.user = Self.user
        }
        test.expectRoute(.push("example/home", args: ["user": Self.user]))
        test.finish()
        #expect(test.failures.isEmpty)
    }

    @Test("a failure without a message shows the default text")
    func failureWithoutMessage() {
        var test = SceneTest(LoginState())
        test.send(.emailChanged("a@b.c")) { $0.email = "a@b.c" }
        test.send(.passwordChanged("pw")) { $0.password = "pw" }
        test.send(.submit) { $0.isSubmitting = true }
        let login = test.receiveEffect(service: "auth", op: "login")
        test.resolve(login, with: .failure(["code": "timeout"])) {
            $0.isSubmitting = false
            $0.error = "Login failed"
        }
        test.finish()
        #expect(test.failures.isEmpty)
    }

    @Test("the outcome's action is read like any action: a refused one leaves the effect in flight")
    func refusedOutcome() {
        var test = SceneTest(LoginState())
        test.send(.emailChanged("a@b.c")) { $0.email = "a@b.c" }
        test.send(.passwordChanged("pw")) { $0.password = "pw" }
        test.send(.submit) { $0.isSubmitting = true }
        let login = test.receiveEffect(service: "auth", op: "login")
        expectFailure("the scene refuses the outcome's action", "bad_payload", "(at /payload/user)") {
            test.resolve(login, with: .success(["id": 1]))
        }
        #expect(test.pendingEffects == [login])
        test.resolve(login, with: .success(["user": 1])) {
            $0.isSubmitting = false
            $0.user = 1
        }
        test.expectRoute(.push("example/home", args: ["user": 1]))
        test.finish()
        #expect(test.failures.count == 1)
    }
}
