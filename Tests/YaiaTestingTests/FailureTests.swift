import Testing
import YaiaExamples
import YaiaKit
import YaiaTesting

/// A login scene at the point of submitting a valid form.
func readyToSubmit() -> SceneTest<LoginState> {
    var test = SceneTest(LoginState())
    test.send(.emailChanged("a@b.c")) { $0.email = "a@b.c" }
    test.send(.passwordChanged("pw")) { $0.password = "pw" }
    return test
}

/// A scene whose effect asks for no outcome: fire and forget.
struct PingState: SceneState {
    static let name = "test/ping"
    var sent = 0

    enum Action: SceneAction, Equatable {
        case ping
        init(_ action: YaiaKit.Action) throws(YaiaError) {
            guard action.type == "ping" else { throw action.unknown }
            self = .ping
        }
    }

    init() {}
    init(args: JSON) throws(YaiaError) {}
    init(json: JSON) throws(YaiaError) { sent = Int(json["sent"]?.int64Value ?? 0) }
    var json: JSON { ["sent": JSON(sent)] }
    var viewModel: JSON { json }

    mutating func reduce(_ action: Action) -> [Command] {
        sent += 1
        return [.effect(Effect(service: "analytics", op: "ping", args: JSON(sent)))]
    }
}

@Suite("SceneTest failures: wrong expectations fail, with messages that say why")
struct FailureTests {
    @Test("a wrong state expectation fails with a diff naming the pointer and both values")
    func wrongState() {
        var test = SceneTest(LoginState())
        let line = #line + 2
        withKnownIssue {
            test.send(.emailChanged("a@b.c")) { $0.email = "x@y.z" }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("/email: expected \"x@y.z\", got \"a@b.c\"") && issue.sourceLocation?.line == line
                && issue.sourceLocation?.fileID == #fileID
        }
        #expect(test.failures == ["send(emailChanged(\"a@b.c\")): the state is not the expected one:\n  /email: expected \"x@y.z\", got \"a@b.c\""])
        // The test goes on from the actual state.
        #expect(test.state.email == "a@b.c")
        test.send(.passwordChanged("pw")) { $0.password = "pw" }
        #expect(test.failures.count == 1)
    }

    @Test("a state change the closure does not mention fails: exhaustive by default")
    func unmentionedChange() {
        var test = readyToSubmit()
        expectFailure("send(submit): the state is not the expected one:", "/isSubmitting: expected false, got true") {
            test.send(.submit)
        }
        // Several differences: one line each.
        expectFailure("/email: expected \"e\", got \"a@b.c\"", "/error: expected \"oops\", got null") {
            test.receiveEffect(service: "auth", op: "login")
            test.send(.passwordChanged("pw2")) {
                $0.email = "e"
                $0.error = "oops"
                $0.password = "pw2"
            }
        }
        #expect(test.failures.count == 2)
        #expect(test.failures[1].hasSuffix("\n  /email: expected \"e\", got \"a@b.c\"\n  /error: expected \"oops\", got null"))
    }

    @Test("states that differ only outside their JSON forms are shown whole")
    func equalJSON() {
        var test = SceneTest(LoginState())
        expectFailure("though their JSON forms are equal", "expected: ", "actual: ") {
            // The reducer keeps a null user as nil; .some(.null) is another value with the same JSON.
            test.send("loginSucceeded", payload: ["user": .null]) { $0.user = .null }
        }
        expectFailure("1 route emitted but never asserted") { test.finish() }
    }

    @Test("an effect never received fails at finish")
    func unreceivedEffectAtFinish() {
        var test = readyToSubmit()
        test.send(.submit) { $0.isSubmitting = true }
        expectFailure("finish: 1 effect emitted but never received:", "#0 auth.login {\"args\":{\"email\":\"a@b.c\",\"password\":\"pw\"}") {
            test.finish()
        }
        #expect(test.failures.count == 1)
        // Reported once: a second finish passes.
        test.finish()
        #expect(test.failures.count == 1)
    }

    @Test("an effect never received fails at the next input")
    func unreceivedEffectAtNextSend() {
        var test = readyToSubmit()
        test.send(.submit) { $0.isSubmitting = true }
        expectFailure("send(emailChanged(\"b@b.c\")): 1 effect emitted but never received:", "#0 auth.login",
                      "assert what a step emits before the next input") {
            test.send(.emailChanged("b@b.c")) { $0.email = "b@b.c" }
        }
        // Reported once: not again as in flight at finish.
        test.finish()
        #expect(test.failures.count == 1)
    }

    @Test("an effect never resolved fails at finish")
    func unresolvedEffect() {
        var test = readyToSubmit()
        test.send(.submit) { $0.isSubmitting = true }
        test.receiveEffect(service: "auth", op: "login")
        expectFailure("finish: 1 effect is still in flight (resolve it, or have the scene cancel it):", "#0 auth.login") {
            test.finish()
        }
        #expect(test.failures.count == 1)
    }

    @Test("an unknown action fails with unknown_action and changes nothing")
    func unknownAction() {
        var test = SceneTest(LoginState())
        expectFailure("send({\"type\":\"logout\"}): the scene refuses the action: unknown_action: unknown action type \"logout\" (at /type)") {
            test.send("logout")
        }
        expectFailure("bad_payload", "(at /payload)") {
            test.send("emailChanged", payload: 5) { $0.email = "5" }
        }
        #expect(test.state == LoginState())
        #expect(test.failures.count == 2)
    }

    @Test("a route never asserted fails at finish and at the next input")
    func unassertedRoute() {
        var test = SceneTest(HomeState())
        test.send(.logout)
        expectFailure("finish: 1 route emitted but never asserted:\n  {\"popToRoot\":true}") { test.finish() }
        test.send(.showAbout)
        expectFailure("send(logout): 1 route emitted but never asserted:\n  {\"present\":\"example/about\"}") {
            test.send(.logout)
        }
        test.expectRoute(.popToRoot)
        test.finish()
        #expect(test.failures.count == 2)
    }

    @Test("a wrong route fails with a diff; no route at all fails too")
    func wrongRoute() {
        var test = SceneTest(HomeState())
        test.send(.showAbout)
        expectFailure("the next route is {\"present\":\"example/about\"}", "/popTo: expected \"example/about\", got no member",
                      "/present: expected no member, got \"example/about\"") {
            test.expectRoute(.popTo("example/about"))
        }
        expectFailure("expectRoute({\"popToRoot\":true}): no route was emitted that was not asserted already") {
            test.expectRoute(.popToRoot)
        }
        test.finish()
        #expect(test.failures.count == 2)
    }

    @Test("a wrong effect fails with a diff, and is received all the same")
    func wrongEffect() {
        var test = readyToSubmit()
        test.send(.submit) { $0.isSubmitting = true }
        var login: EmittedEffect?
        expectFailure("receiveEffect(auth.logout with args {\"email\":\"a@b.c\"}): the next effect is #0 auth.login",
                      "/args/password: expected no member, got \"pw\"", "/op: expected \"logout\", got \"login\"") {
            login = test.receiveEffect(service: "auth", op: "logout", args: ["email": "a@b.c"])
        }
        #expect(login?.index == 0)
        #expect(login?.effect.op == "login")
        expectFailure("/catch: expected no member, got \"loginFailed\"") {
            var other = readyToSubmitAndSend()
            other.receiveEffect(Effect(service: "auth", op: "login", args: ["email": "a@b.c", "password": "pw"], then: "loginSucceeded"))
        }
        expectFailure("receiveEffect(auth.login): no effect was emitted that was not received already") {
            let missing = test.receiveEffect(service: "auth", op: "login")
            #expect(missing.index == -1)
            // Resolving the stand-in adds no second failure.
            test.resolve(missing, with: .success(["user": 1]))
        }
        if let login {
            test.resolve(login, with: .failure("no")) {
                $0.isSubmitting = false
                $0.error = "no"
            }
        }
        test.finish()
        #expect(test.failures.count == 2)
    }

    @Test("view model expectations")
    func viewModel() {
        var test = SceneTest(HomeState())
        expectFailure("expectViewModel: the view model is not the expected one:", "/isLoading: expected true, got false") {
            test.expectViewModel(["user": .null, "items": [], "isLoading": true, "error": .null])
        }
        var login = SceneTest(LoginState())
        expectFailure("expectViewModel: the view model does not satisfy the predicate: {\"canSubmit\":false") {
            login.expectViewModel { $0.canSubmit }
        }
    }

    @Test("a throwing state closure is a failure")
    func throwingClosure() {
        var test = SceneTest(LoginState())
        expectFailure("the state closure threw", "bad_state") {
            test.send(.emailChanged("a@b.c")) { $0 = try LoginState(json: [:]) }
        }
    }

    @Test("an effect without then or catch resolves without reducing anything")
    func fireAndForget() {
        var test = SceneTest(PingState())
        test.send(.ping) { $0.sent = 1 }
        let ping = test.receiveEffect(service: "analytics", op: "ping", args: 1)
        test.resolve(ping, with: .success(.null))
        test.send(.ping) { $0.sent = 2 }
        let second = test.receiveEffect(service: "analytics", op: "ping", args: 2)
        expectFailure("resolve(#1 analytics.ping, with: .failure({}))", "/sent: expected 9, got 2") {
            test.resolve(second, with: .failure([:])) { $0.sent = 9 }
        }
        #expect(test.pendingEffects.isEmpty)
        test.finish()
        #expect(test.failures.count == 1)
    }

    @Test("a handle from another test is refused")
    func foreignHandle() {
        var other = SceneTest(PingState())
        other.send(.ping) { $0.sent = 1 }
        let foreign = other.receiveEffect(service: "analytics", op: "ping")
        var test = SceneTest(PingState())
        expectFailure("this test emitted no such effect") { test.resolve(foreign, with: .success(1)) }
    }
}

func readyToSubmitAndSend() -> SceneTest<LoginState> {
    var test = readyToSubmit()
    test.send(.submit) { $0.isSubmitting = true }
    return test
}

@Suite("SceneTest with exhaustivity off")
struct RelaxedTests {
    @Test("only what a closure states is checked; effects and routes may be skipped or left in flight")
    func relaxed() {
        var test = SceneTest(LoginState(), exhaustivity: .off)
        test.send(.emailChanged("a@b.c"))
        test.send(.passwordChanged("pw")) { $0.email = "a@b.c" }
        test.send(.submit) { $0.isSubmitting = true }
        // Never received: skipped at the next input.
        test.send(.submit) { $0.error = "A login is already in progress" }
        #expect(test.pendingEffects.count == 1)
        test.finish()
        #expect(test.failures.isEmpty)
    }

    @Test("a stated change that does not hold still fails")
    func statedChangeFails() {
        var test = SceneTest(LoginState(), exhaustivity: .off)
        expectFailure("/email: expected \"x\", got \"a@b.c\"") {
            test.send(.emailChanged("a@b.c")) { $0.email = "x" }
        }
    }

    @Test("effects and routes may be asserted in any order")
    func anyOrder() {
        var test = SceneTest(JobsState(), exhaustivity: .off)
        test.send("run", payload: ["service": "a", "op": "one"])
        test.send("run", payload: ["service": "b", "op": "two"])
        // Only what the latest input emitted can be received.
        expectFailure("none of the effects not yet received matches:", "#1 b.two") {
            test.receiveEffect(service: "a", op: "one")
        }
        let two = test.receiveEffect(service: "b", op: "two")
        test.resolve(two, with: .success(2)) { $0.log = [["ok": true, "result": 2]] }
        var home = SceneTest(HomeState(), exhaustivity: .off)
        home.send(.logout)
        home.expectRoute(.popToRoot)
        test.finish()
        home.finish()
        #expect(test.failures.count == 1)
        #expect(home.failures.isEmpty)
    }
}
