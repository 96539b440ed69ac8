import YaiaKit

/// The C types of the foreign-function signature language (docs/ffi.md).
public enum ForeignType: String, Sendable, Equatable, CaseIterable {
    case void, bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64
    case float, double
    case size_t
    /// NUL-terminated text: a JSON string, borrowed for the call.
    case string
    /// A returned `char *` the callee allocated: copied, then freed with the
    /// binding's free function.
    case ownedString = "string!"
    /// A pointer to bytes (a JSON string as UTF-8, or {"base64": ...}); a
    /// `len T` parameter after it receives their count.
    case bytes
    /// A pointer the runtime handed out, carried in JSON as an opaque handle.
    case pointer

    public var isInteger: Bool {
        switch self {
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64, .size_t: return true
        default: return false
        }
    }

    /// Scalars may be out-parameters.
    public var isScalar: Bool { isInteger || self == .bool || self == .float || self == .double || self == .pointer }

    /// The range of an integer type, as (min, max) in Int128-free terms.
    public var integerBounds: (min: Int64, max: UInt64)? {
        switch self {
        case .int8: return (Int64(Int8.min), UInt64(Int8.max))
        case .int16: return (Int64(Int16.min), UInt64(Int16.max))
        case .int32: return (Int64(Int32.min), UInt64(Int32.max))
        case .int64: return (Int64.min, UInt64(Int64.max))
        case .uint8: return (0, UInt64(UInt8.max))
        case .uint16: return (0, UInt64(UInt16.max))
        case .uint32: return (0, UInt64(UInt32.max))
        case .uint64, .size_t: return (0, UInt64.max)
        default: return nil
        }
    }
}

/// A parsed signature such as `double(double, out int32)`.
public struct ForeignSignature: Sendable, Equatable {
    public struct Parameter: Sendable, Equatable {
        public var type: ForeignType
        /// `out T`: the runtime passes a pointer to a slot of its own.
        public var isOut: Bool
        /// `len T`: the length of the last `bytes` parameter before it, filled by the runtime.
        public var isLength: Bool
        /// `pointer!`: the callee takes the pointer (frees it, say); its handle is forgotten.
        public var consumes: Bool

        public init(_ type: ForeignType, isOut: Bool = false, isLength: Bool = false, consumes: Bool = false) {
            self.type = type
            self.isOut = isOut
            self.isLength = isLength
            self.consumes = consumes
        }
    }

    public var returns: ForeignType
    public var parameters: [Parameter]

    /// How many JSON arguments a call takes: outs and lengths are not passed.
    public var argumentCount: Int { parameters.filter { !$0.isOut && !$0.isLength }.count }
    public var outCount: Int { parameters.filter(\.isOut).count }
    /// How many pointers a call hands out: its return and `out pointer`s.
    public var pointersOut: Int {
        (returns == .pointer ? 1 : 0) + parameters.filter { $0.isOut && $0.type == .pointer }.count
    }

    public init(returns: ForeignType, parameters: [Parameter]) {
        self.returns = returns
        self.parameters = parameters
    }

    /// Parses and validates a signature. Errors (`bad_signature`) name the
    /// offending token and its column (1-based).
    public init(parsing text: String) throws(YaiaError) {
        var tokens: [(text: String, column: Int)] = []
        var current = ""
        var start = 0
        for (i, ch) in text.enumerated() {
            if ch == "(" || ch == ")" || ch == "," || ch == " " || ch == "\t" {
                if !current.isEmpty { tokens.append((current, start + 1)) }
                current = ""
                if ch != " " && ch != "\t" { tokens.append((String(ch), i + 1)) }
            } else {
                if current.isEmpty { start = i }
                current.append(ch)
            }
        }
        if !current.isEmpty { tokens.append((current, start + 1)) }

        func fail(_ message: String, _ token: (text: String, column: Int)?) -> YaiaError {
            guard let token else { return YaiaError(.badSignature, "signature \"\(text)\": \(message) at the end") }
            return YaiaError(.badSignature, "signature \"\(text)\": \(message): \"\(token.text)\" at column \(token.column)")
        }
        func type(_ token: (text: String, column: Int)) throws(YaiaError) -> ForeignType {
            guard let t = ForeignType(rawValue: token.text) else {
                throw fail("unknown type (known: \((ForeignType.allCases.map(\.rawValue) + ["pointer!"]).joined(separator: " ")))", token)
            }
            return t
        }

        var i = 0
        func next() -> (text: String, column: Int)? {
            defer { i += 1 }
            return i < tokens.count ? tokens[i] : nil
        }
        guard let first = next() else { throw YaiaError(.badSignature, "the signature is empty") }
        if first.text == "pointer!" { throw fail("pointer! is for parameters; a returned pointer is always given a handle", first) }
        let returns = try type(first)
        switch returns {
        case .bytes: throw fail("bytes cannot be returned", first)
        default: break
        }
        guard let open = next(), open.text == "(" else { throw fail("expected '(' after the return type", tokens.count > 1 ? tokens[1] : nil) }
        _ = open
        var parameters: [Parameter] = []
        var closed = false
        var expectParameter = true
        // The last bytes parameter, while it has no length yet.
        var unmeasured: (text: String, column: Int)?
        func unmeasuredError(_ bytes: (text: String, column: Int)) -> YaiaError {
            fail("a bytes parameter needs its length declared after it, before any other bytes: "
                 + "write \"bytes, len size_t\" (any integer type after len); an integer without len is an argument of its own", bytes)
        }
        while let token = next() {
            if token.text == ")" {
                if expectParameter && !parameters.isEmpty { throw fail("expected a parameter type", token) }
                closed = true
                break
            }
            if token.text == "," {
                if expectParameter { throw fail("expected a parameter type", token) }
                expectParameter = true
                continue
            }
            guard expectParameter else { throw fail("expected ',' or ')'", token) }
            expectParameter = false
            var isOut = false
            var isLength = false
            var consumes = false
            var typeToken = token
            if token.text == "out" || token.text == "len" {
                guard let t = next() else { throw fail("expected a type after '\(token.text)'", nil) }
                isOut = token.text == "out"
                isLength = token.text == "len"
                typeToken = t
            }
            if typeToken.text == "pointer!" {
                guard !isOut && !isLength else { throw fail("pointer! is a parameter's type, not out or len", typeToken) }
                consumes = true
                typeToken.text = "pointer"
            }
            let t = try type(typeToken)
            if t == .void {
                // `void` alone means no parameters, as in C's f(void).
                guard !isOut, parameters.isEmpty, i < tokens.count, tokens[i].text == ")" else {
                    throw fail("void is not a parameter type", typeToken)
                }
                expectParameter = true
                continue
            }
            if t == .ownedString { throw fail("string! is for returns only; a parameter is string", typeToken) }
            if isOut && !t.isScalar { throw fail("out takes a scalar type", typeToken) }
            if isLength {
                guard t.isInteger else { throw fail("len takes an integer type", typeToken) }
                guard unmeasured != nil else { throw fail("len measures the bytes parameter before it, and there is none without a length", token) }
                unmeasured = nil
            }
            if t == .bytes && !isOut {
                if let previous = unmeasured { throw unmeasuredError(previous) }
                unmeasured = typeToken
            }
            parameters.append(Parameter(t, isOut: isOut, isLength: isLength, consumes: consumes))
        }
        guard closed else { throw fail("expected ')'", nil) }
        if let extra = next() { throw fail("unexpected text after ')'", extra) }
        if let bytes = unmeasured { throw unmeasuredError(bytes) }
        self.init(returns: returns, parameters: parameters)
    }

    public var description: String {
        let ps = parameters.map { ($0.isOut ? "out " : $0.isLength ? "len " : "") + $0.type.rawValue + ($0.consumes ? "!" : "") }
        return "\(returns.rawValue)(\(ps.joined(separator: ",")))"
    }
}
