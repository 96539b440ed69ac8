/// Typed reads of JSON members: the one family of readers behind requests,
/// snapshots, journals, effects, routes and scene states. A member of the
/// wrong type, or missing when required, throws `code` with a message that
/// names it and `at` pointing at it. Pointers are built only for an error:
/// reading effects and requests is on the hot path.
package enum MemberReading {
    /// A string; `nonEmpty` refuses "".
    package static func string(_ value: JSON?, _ name: String, at pointer: @autoclosure () -> String, code: ErrorCode,
                              nonEmpty: Bool = false) throws(YaiaError) -> String {
        let what = nonEmpty ? "a non-empty string" : "a string"
        guard let value else { throw missing(name, what, at: pointer(), code: code) }
        guard case .string(let s) = value, !(nonEmpty && s.isEmpty) else { throw wrong(name, what, value, at: pointer(), code: code) }
        return s
    }

    /// A string, or nil when missing or null.
    package static func optionalString(_ value: JSON?, _ name: String, at pointer: @autoclosure () -> String, code: ErrorCode) throws(YaiaError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let other?: throw wrong(name, "a string", other, at: pointer(), code: code)
        }
    }

    package static func bool(_ value: JSON?, _ name: String, at pointer: @autoclosure () -> String, code: ErrorCode) throws(YaiaError) -> Bool {
        guard let value else { throw missing(name, "a boolean", at: pointer(), code: code) }
        guard case .bool(let b) = value else { throw wrong(name, "a boolean", value, at: pointer(), code: code) }
        return b
    }

    /// A whole number (`1.0` is one), within `range` when given.
    package static func integer(_ value: JSON?, _ name: String, at pointer: @autoclosure () -> String, code: ErrorCode,
                               in range: ClosedRange<Int64>? = nil) throws(YaiaError) -> Int64 {
        func what() -> String { range.map { "a whole number from \($0.lowerBound) to \($0.upperBound)" } ?? "a whole number" }
        guard let value else { throw missing(name, what(), at: pointer(), code: code) }
        guard let n = value.int64Value, range.map({ $0.contains(n) }) ?? true else {
            throw wrong(name, what(), value, at: pointer(), code: code)
        }
        return n
    }

    static func missing(_ name: String, _ what: String, at pointer: String, code: ErrorCode) -> YaiaError {
        YaiaError(code, "\"\(name)\" is missing: it must be \(what)", at: pointer)
    }

    static func wrong(_ name: String, _ what: String, _ value: JSON, at pointer: String, code: ErrorCode) -> YaiaError {
        // A number is shown as it is: "a number" would not say what is wrong with 1.5.
        let shown = value.isNumber ? "\(value)" : value.kindName
        return YaiaError(code, "\"\(name)\" must be \(what), not \(shown)", at: pointer)
    }
}

extension JSONObject {
    /// Member `key` as a string; `code` at `base/key` when missing or not one.
    public func string(_ key: String, code: ErrorCode = .badState, under base: @autoclosure () -> String = "", nonEmpty: Bool = false) throws(YaiaError) -> String {
        try MemberReading.string(self[key], key, at: JSONPointer.appending(base(), key), code: code, nonEmpty: nonEmpty)
    }

    /// Member `key` as a string, or nil when missing or null.
    public func optionalString(_ key: String, code: ErrorCode = .badState, under base: @autoclosure () -> String = "") throws(YaiaError) -> String? {
        try MemberReading.optionalString(self[key], key, at: JSONPointer.appending(base(), key), code: code)
    }

    public func bool(_ key: String, code: ErrorCode = .badState, under base: @autoclosure () -> String = "") throws(YaiaError) -> Bool {
        try MemberReading.bool(self[key], key, at: JSONPointer.appending(base(), key), code: code)
    }

    /// Member `key` as a whole number, within `range` when given.
    public func integer(_ key: String, code: ErrorCode = .badState, under base: @autoclosure () -> String = "",
                        in range: ClosedRange<Int64>? = nil) throws(YaiaError) -> Int64 {
        try MemberReading.integer(self[key], key, at: JSONPointer.appending(base(), key), code: code, in: range)
    }
}
