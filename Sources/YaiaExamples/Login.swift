import YaiaKit

/// The YAIA login scene: form state, validation, one auth effect, a route on success.
public struct LoginState: SceneState {
    public static let name = "example/login"

    public var email = ""
    public var password = ""
    public var isSubmitting = false
    public var error: String?
    public var user: JSON?

    public enum Action: SceneAction, Equatable {
        case emailChanged(String)
        case passwordChanged(String)
        case submit
        case loginSucceeded(user: JSON)
        case loginFailed(message: String)

        public init(_ action: YaiaKit.Action) throws(YaiaError) {
            switch action.type {
            case "emailChanged": self = .emailChanged(try action.stringPayload())
            case "passwordChanged": self = .passwordChanged(try action.stringPayload())
            case "submit": self = .submit
            case "loginSucceeded":
                self = .loginSucceeded(user: try action.member("user", of: try action.objectPayload()))
            case "loginFailed":
                self = .loginFailed(message: try failureMessage(action, default: "Login failed"))
            default: throw action.unknown
            }
        }
    }

    public struct ViewModel: JSONRepresentable, Equatable, Sendable {
        public var email: String
        public var canSubmit: Bool
        public var isSubmitting: Bool
        public var error: String?

        public var json: JSON {
            ["canSubmit": .bool(canSubmit), "email": .string(email), "error": JSON(error), "isSubmitting": .bool(isSubmitting)]
        }
    }

    public init() {}

    public init(args: JSON) throws(YaiaError) {
        guard case .object(let o) = args else {
            throw YaiaError(.badArgs, "example/login takes an object of arguments, not \(args.kindName)")
        }
        email = try o.optionalString("email", code: .badArgs) ?? ""
    }

    public init(json: JSON) throws(YaiaError) {
        guard case .object(let o) = json else { throw YaiaError(.badState, "a login state is an object") }
        email = try o.string("email")
        password = try o.string("password")
        isSubmitting = try o.bool("isSubmitting")
        error = try o.optionalString("error")
        user = o["user"].flatMap { $0.isNull ? nil : $0 }
    }

    public var json: JSON {
        ["email": .string(email), "password": .string(password), "isSubmitting": .bool(isSubmitting),
         "error": JSON(error), "user": user ?? .null]
    }

    /// A byte scan: `String.contains(Character)` walks grapheme clusters, and
    /// this runs for every view model.
    var isValid: Bool { email.utf8.contains(UInt8(ascii: "@")) && !password.isEmpty }

    public var viewModel: ViewModel {
        ViewModel(email: email, canSubmit: isValid && !isSubmitting, isSubmitting: isSubmitting, error: error)
    }

    public mutating func reduce(_ action: Action) -> [Command] {
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
            // nil and null are one state, so that the state survives its JSON form.
            self.user = user.isNull ? nil : user
            return [.route(.push("example/home", args: ["user": user]))]
        case .loginFailed(let message):
            isSubmitting = false
            error = message
            return []
        }
    }
}

/// The message of a failure payload; services may fail with any value, so a
/// missing message falls back to a default instead of refusing the outcome.
func failureMessage(_ action: YaiaKit.Action, default fallback: String) throws(YaiaError) -> String {
    switch action.payload {
    case .object(let o)?:
        if case .string(let m)? = o["message"] { return m }
        return fallback
    case .string(let m)?: return m
    case nil, .null?: return fallback
    case let other?:
        throw YaiaError(.badPayload, "\(action.type) takes an object payload with \"message\", not \(other.kindName)", at: "/payload")
    }
}
