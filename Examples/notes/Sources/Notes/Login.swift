import YaiaKit

/// The login form: email and password, checked before anything is sent; one
/// `auth.login` effect; on success the user's notes are pushed.
public struct LoginState: SceneState, Codable {
    public static let name = "notes/login"

    public var email = ""
    public var password = ""
    public var isSubmitting = false
    /// Why the last submit did not log in.
    public var error: String?

    public init() {}

    /// Open arguments: an email to start with (say, the last one used).
    public struct Args: Codable, Sendable {
        public var email: String?
    }

    public init(args: JSON) throws(YaiaError) {
        email = try args.decode(Args.self, code: .badArgs).email ?? ""
    }

    public enum Action: SceneAction, Equatable, Decodable {
        case emailChanged(String)
        case passwordChanged(String)
        case submit
        /// `auth.login`'s result: `{"user": {"email": ...}}`.
        case loginSucceeded(user: User)
        /// `auth.login`'s error: `{"message": ...}`, or `{"code": "timeout"}`.
        case loginFailed(code: String?, message: String?)
    }

    public struct ViewModel: JSONRepresentable, Encodable, Equatable, Sendable {
        public var email: String
        /// What is wrong with the email as typed; nil while it is empty, so
        /// that an untouched form does not open with an error.
        public var emailError: String?
        public var canSubmit: Bool
        public var isSubmitting: Bool
        public var error: String?
    }

    /// Why the form cannot be sent, or nil.
    var problem: String? { check().problem }

    /// What is wrong with the email as typed, and why the form cannot be
    /// sent: worked out once for both, since every view model needs both.
    private func check() -> (emailError: String?, problem: String?) {
        let email = self.email.trimmed
        if email.isEmpty { return (nil, "Enter your email address") }
        if let problem = LoginState.emailProblem(email) { return (problem, problem) }
        return (nil, password.isEmpty ? "Enter your password" : nil)
    }

    /// Not an address check (the auth service is the judge), a typo check:
    /// something on both sides of one "@", no spaces.
    /// A byte scan, since it runs for every view model; only text beyond
    /// ASCII needs Character's idea of white space.
    static func emailProblem(_ email: String) -> String? {
        var ats = 0, before = 0, after = 0, ascii = true
        for b in email.utf8 {
            if b >= 0x80 { ascii = false } else if b == 0x20 || (b >= 0x09 && b <= 0x0D) { return invalidEmail }
            if b == UInt8(ascii: "@") { ats += 1 } else if ats == 0 { before += 1 } else { after += 1 }
        }
        guard ats == 1, before > 0, after > 0, ascii || !email.contains(where: \.isWhitespace) else { return invalidEmail }
        return nil
    }

    static let invalidEmail = "Enter a valid email address"

    public var viewModel: ViewModel {
        let (emailError, problem) = check()
        return ViewModel(email: email, emailError: emailError, canSubmit: problem == nil && !isSubmitting,
                         isSubmitting: isSubmitting, error: error)
    }

    public mutating func reduce(_ action: Action) -> [Command] {
        switch action {
        // An edit answers the last error: it no longer describes the form.
        case .emailChanged(let value):
            email = value
            error = nil
            return []
        case .passwordChanged(let value):
            password = value
            error = nil
            return []
        case .submit:
            guard !isSubmitting else { return [] }
            if let problem {
                error = problem
                return []
            }
            isSubmitting = true
            error = nil
            return [.effect(Effect(service: "auth", op: "login",
                                   args: ["email": .string(email.trimmed), "password": .string(password)],
                                   then: "loginSucceeded", catch: "loginFailed", options: .init(timeout: 10)))]
        case .loginSucceeded(let user):
            isSubmitting = false
            // Used once: a password has no business in snapshots and journals
            // of the states that follow.
            password = ""
            return [.route(.push(ListState.name, args: ListState.Args(user: user).json))]
        case .loginFailed(let code, let message):
            isSubmitting = false
            error = failureText("Login failed", code: code, message: message)
            return []
        }
    }
}
