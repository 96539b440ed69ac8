/// A stable error code: the part of an error envelope programs may rely on.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let invalidJSON = ErrorCode(rawValue: "invalid_json")
    public static let notAnObject = ErrorCode(rawValue: "not_an_object")
    public static let nullArgument = ErrorCode(rawValue: "null_argument")
    public static let badHandle = ErrorCode(rawValue: "bad_handle")
    public static let unknownOp = ErrorCode(rawValue: "unknown_op")
    public static let badRequest = ErrorCode(rawValue: "bad_request")
    public static let badConfig = ErrorCode(rawValue: "bad_config")
    public static let unknownScene = ErrorCode(rawValue: "unknown_scene")
    public static let noSuchScene = ErrorCode(rawValue: "no_such_scene")
    public static let badArgs = ErrorCode(rawValue: "bad_args")
    public static let missingActionType = ErrorCode(rawValue: "missing_action_type")
    public static let unknownAction = ErrorCode(rawValue: "unknown_action")
    public static let badPayload = ErrorCode(rawValue: "bad_payload")
    public static let badState = ErrorCode(rawValue: "bad_state")
    public static let noSuchEffect = ErrorCode(rawValue: "no_such_effect")
    public static let effectAlreadyResolved = ErrorCode(rawValue: "effect_already_resolved")
    public static let effectNotPending = ErrorCode(rawValue: "effect_not_pending")
    public static let badService = ErrorCode(rawValue: "bad_service")
    public static let duplicateService = ErrorCode(rawValue: "duplicate_service")
    public static let badResult = ErrorCode(rawValue: "bad_result")
    public static let pluginNotFound = ErrorCode(rawValue: "plugin_not_found")
    public static let pluginNotLoadable = ErrorCode(rawValue: "plugin_not_loadable")
    public static let pluginNoEntry = ErrorCode(rawValue: "plugin_no_entry")
    public static let pluginABIMismatch = ErrorCode(rawValue: "plugin_abi_mismatch")
    public static let pluginInitFailed = ErrorCode(rawValue: "plugin_init_failed")
    public static let noSuchService = ErrorCode(rawValue: "no_such_service")
    public static let serviceFailed = ErrorCode(rawValue: "service_failed")
    public static let timeout = ErrorCode(rawValue: "timeout")
    public static let badSignature = ErrorCode(rawValue: "bad_signature")
    public static let badArgument = ErrorCode(rawValue: "bad_argument")
    public static let libraryNotFound = ErrorCode(rawValue: "library_not_found")
    public static let symbolNotFound = ErrorCode(rawValue: "symbol_not_found")
    public static let badBinding = ErrorCode(rawValue: "bad_binding")
    public static let badRoute = ErrorCode(rawValue: "bad_route")
    public static let noSuchFlow = ErrorCode(rawValue: "no_such_flow")
    public static let staleNavigation = ErrorCode(rawValue: "stale_navigation")
    public static let sceneInFlow = ErrorCode(rawValue: "scene_in_flow")
    public static let noSuchChild = ErrorCode(rawValue: "no_such_child")
    public static let sceneIsChild = ErrorCode(rawValue: "scene_is_child")
    public static let badChild = ErrorCode(rawValue: "bad_child")
    public static let tooManyChildren = ErrorCode(rawValue: "too_many_children")
    public static let childrenTooDeep = ErrorCode(rawValue: "children_too_deep")
    public static let badSnapshot = ErrorCode(rawValue: "bad_snapshot")
    public static let badJournal = ErrorCode(rawValue: "bad_journal")
    public static let scenePackNotFound = ErrorCode(rawValue: "scene_pack_not_found")
    public static let scenePackNotLoadable = ErrorCode(rawValue: "scene_pack_not_loadable")
    public static let scenePackNoEntry = ErrorCode(rawValue: "scene_pack_no_entry")
    public static let scenePackABIMismatch = ErrorCode(rawValue: "scene_pack_abi_mismatch")
    public static let scenePackInvalid = ErrorCode(rawValue: "scene_pack_invalid")
    public static let scenePackError = ErrorCode(rawValue: "scene_pack_error")
    public static let duplicateScene = ErrorCode(rawValue: "duplicate_scene")
    public static let documentNotFound = ErrorCode(rawValue: "document_not_found")
    public static let badDocument = ErrorCode(rawValue: "bad_document")
    public static let notPermitted = ErrorCode(rawValue: "not_permitted")
    public static let limitExceeded = ErrorCode(rawValue: "limit_exceeded")
    public static let idsExhausted = ErrorCode(rawValue: "ids_exhausted")
    public static let handleTableFull = ErrorCode(rawValue: "handle_table_full")
    public static let badRule = ErrorCode(rawValue: "bad_rule")
    public static let logicBudgetExceeded = ErrorCode(rawValue: "logic_budget_exceeded")
    public static let logicError = ErrorCode(rawValue: "logic_error")
    public static let badScenario = ErrorCode(rawValue: "bad_scenario")
    public static let documentFailed = ErrorCode(rawValue: "document_failed")
    public static let notSimulatable = ErrorCode(rawValue: "not_simulatable")
    public static let badPatch = ErrorCode(rawValue: "bad_patch")
    public static let patchTestFailed = ErrorCode(rawValue: "patch_test_failed")
    public static let `internal` = ErrorCode(rawValue: "internal")
}

/// Every failure Yaia reports: a stable code, a message for people, and where
/// in the input the fault lies (a JSON Pointer), when it lies in the input.
public struct YaiaError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var at: String?
    /// For `limit_exceeded`: the name of the limit reached.
    public var limit: String?
    /// For `bad_document`: every problem, `[{"code", "message", "at"}]`.
    public var problems: JSON?
    /// For `scene_pack_error`: the code a pack's scene failed with, when it
    /// is not one a scene may use.
    public var packCode: String?

    public init(_ code: ErrorCode, _ message: String, at: String? = nil) {
        self.code = code
        self.message = message
        self.at = at
    }

    /// `limit_exceeded` for the limit `name`, whose value is `value`.
    package static func limit(_ name: String, _ value: Int, _ what: String, at: String? = nil) -> YaiaError {
        var error = YaiaError(.limitExceeded, "\(what): the \"\(name)\" limit is \(value)", at: at)
        error.limit = name
        return error
    }

    /// The same error, located under `prefix` (a JSON Pointer).
    package func nested(under prefix: String) -> YaiaError {
        var copy = self
        copy.at = prefix + (at ?? "")
        return copy
    }

    /// `{"code", "message", "at"?}`.
    public var json: JSON {
        var o: JSONObject = ["code": .string(code.rawValue), "message": .string(message)]
        if let at { o["at"] = .string(at) }
        if let limit { o["limit"] = .string(limit) }
        if let problems { o["problems"] = problems }
        if let packCode { o["pack_code"] = .string(packCode) }
        return .object(o)
    }

    /// `{"ok": false, "error": {...}}`, with `tag` echoed when given.
    package func envelope(tag: JSON? = nil) -> JSON {
        var o: JSONObject = ["ok": false, "error": json]
        if let tag { o["tag"] = tag }
        return .object(o)
    }

    public var description: String {
        "\(code): \(message)" + (at.map { " (at \($0))" } ?? "")
    }
}

/// RFC 6901 JSON Pointer helpers.
package enum JSONPointer {
    /// Escapes one reference token: `~` as `~0`, `/` as `~1`.
    package static func token(_ key: String) -> String {
        guard key.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return key }
        return key.replacingTildeAndSlash()
    }

    package static func appending(_ pointer: String, _ key: String) -> String { pointer + "/" + token(key) }
    package static func appending(_ pointer: String, _ index: Int) -> String { pointer + "/" + String(index) }
}

extension String {
    fileprivate func replacingTildeAndSlash() -> String {
        var out = ""
        for ch in self {
            switch ch {
            case "~": out += "~0"
            case "/": out += "~1"
            default: out.append(ch)
            }
        }
        return out
    }
}
