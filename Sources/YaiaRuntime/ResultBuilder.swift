// A call's result as a plugin builds it through the host API: members placed, containers opened and closed, within limits.
import CYaia
import YaiaCore
import YaiaKit

/// A change a call's result refused: its code and, for bad JSON or a
/// limit, the error the call then fails with.
struct BuildError: Error {
    let code: Int32
    var failure: JSON? = nil

    static func badResult(_ message: String) -> BuildError {
        BuildError(code: YAIA_ERR_JSON, failure: ["code": .string(ErrorCode.badResult.rawValue), "message": .string(message)])
    }
}

/// A result under construction: the containers open, outermost first.
struct ResultBuilder {
    struct Frame {
        /// Its name in the enclosing object (nil in an array, and for the top).
        var name: String?
        var kind: Int32
        var object = JSONObject()
        var array: [JSON] = []
        /// The whole result, when the top was replaced by a value.
        var value: JSON = .null

        init(name: String? = nil, kind: Int32) {
            self.name = name
            self.kind = kind
        }

        init(value: JSON) {
            kind = YAIA_JSON_NONE
            self.value = value
        }

        consuming func json() -> JSON {
            switch kind {
            case YAIA_JSON_OBJECT: .object(object)
            case YAIA_JSON_ARRAY: .array(array)
            default: value
            }
        }
    }

    var stack = [Frame(kind: YAIA_JSON_OBJECT)]
    /// About the bytes of the result as JSON text, for the size limit.
    var bytes = 0
    var limits = Limits()

    var depth: Int { stack.count }

    /// Puts `value` where the next value goes (see yaia_plugin.h).
    mutating func place(_ name: String?, _ value: JSON, cost: Int) throws(BuildError) {
        let last = stack.count - 1
        switch stack[last].kind {
        case YAIA_JSON_ARRAY:
            try count(cost)
            stack[last].array.append(value)
        case YAIA_JSON_OBJECT:
            guard let name else {
                guard last == 0 else { throw BuildError(code: YAIA_ERR_ARGUMENT) }
                stack[0] = Frame(value: value)
                bytes = cost
                return
            }
            try count(cost + name.utf8.count + 4)
            stack[last].object[name] = value
        default:
            guard name == nil else { throw BuildError(code: YAIA_ERR_STATE) }
            stack[0] = Frame(value: value)
            bytes = cost
        }
    }

    private mutating func count(_ cost: Int) throws(BuildError) {
        bytes += cost
        guard bytes <= limits.requestBytes else {
            throw BuildError(code: YAIA_ERR_LIMIT, failure: YaiaError.limit("request_bytes", limits.requestBytes, "the result built").json)
        }
    }

    mutating func open(_ name: String?, array: Bool) throws(BuildError) {
        let kind = array ? YAIA_JSON_ARRAY : YAIA_JSON_OBJECT
        let last = stack.count - 1
        // At the top, a container without a name replaces the result.
        if last == 0 && name == nil && stack[0].kind != YAIA_JSON_ARRAY {
            stack[0] = Frame(kind: kind)
            bytes = 2
            return
        }
        switch stack[last].kind {
        case YAIA_JSON_OBJECT: guard name != nil else { throw BuildError(code: YAIA_ERR_ARGUMENT) }
        case YAIA_JSON_ARRAY: break
        default: throw BuildError(code: YAIA_ERR_STATE)
        }
        guard stack.count < limits.depth else {
            throw BuildError(code: YAIA_ERR_LIMIT, failure: YaiaError.limit("depth", limits.depth, "the result built").json)
        }
        try count(2 + (name?.utf8.count ?? 0))
        stack.append(Frame(name: stack[last].kind == YAIA_JSON_OBJECT ? name : nil, kind: kind))
    }

    mutating func close() throws(BuildError) {
        guard stack.count > 1 else { throw BuildError(code: YAIA_ERR_STATE) }
        let frame = stack.removeLast()
        let last = stack.count - 1
        if let name = frame.name {
            stack[last].object[name] = frame.json()
        } else {
            stack[last].array.append(frame.json())
        }
    }

    /// The result, everything closed; the builder starts afresh.
    mutating func finish() -> JSON {
        while stack.count > 1 { try? close() }
        defer { self = ResultBuilder(limits: limits) }
        return stack.removeLast().json()
    }

    /// The result as an error object with "code" and "message"; nil (and
    /// nothing changed) when it is no object.
    mutating func error(code: String?, message: String?) -> JSON? {
        guard stack[0].kind == YAIA_JSON_OBJECT else { return nil }
        while stack.count > 1 { try? close() }
        if let code { stack[0].object["code"] = .string(code) }
        if let message { stack[0].object["message"] = .string(message) }
        return finish()
    }

    init(limits: Limits = Limits()) { self.limits = limits }
}

func memberName(_ name: UnsafePointer<CChar>?) -> String? { name.map { String(cString: $0) } }

/// Runs one change of a call's result. A change that makes the result no
/// JSON, or passes a limit, fails the call.
func buildResult(_ call: OpaquePointer?, _ change: (inout ResultBuilder) throws(BuildError) -> Void) -> Int32 {
    guard let call else { return YAIA_ERR_ARGUMENT }
    let handle = UInt(bitPattern: call)
    guard let data = calls.get(handle)?.callData else { return YAIA_ERR_STALE }
    let refused = data.withBuilder { b -> BuildError? in
        do throws(BuildError) {
            try change(&b)
            return nil
        } catch {
            return error
        }
    }
    guard let refused else { return YAIA_OK }
    if let failure = refused.failure {
        guard deliver(handle, .failure(failure)) else { return YAIA_ERR_STALE }
        Log.write(.warning, "runtime", "a service's result was refused: \(failure["message"]?.stringValue ?? "")")
    }
    return refused.code
}
