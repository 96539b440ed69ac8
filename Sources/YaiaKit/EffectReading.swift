/// An effect's members and their checks, described once: `Effect(json:)`
/// gives it the members of a tree, `Command.list(from:)` those it reads from
/// text (without building the effect's object), and both get the same
/// effect, or the same refusal.
struct EffectReading {
    private var service: JSON?, op: JSON?, args: JSON?, then: JSON?, catchName: JSON?
    private var id: JSON?, timeout: JSON?, policy: JSON?, restore: JSON?

    /// Takes the member `key` (its UTF-8 bytes); other keys are ignored.
    /// Later duplicates win, as in `JSONObject`.
    mutating func take(_ key: UnsafeBufferPointer<UInt8>, _ value: JSON) {
        // By length first: most keys are then told apart by one compare.
        switch key.count {
        case 2:
            if key.is("op") { op = value } else if key.is("id") { id = value }
        case 4:
            if key.is("args") { args = value } else if key.is("then") { then = value }
        case 5:
            if key.is("catch") { catchName = value }
        case 6:
            if key.is("policy") { policy = value }
        case 7:
            if key.is("service") { service = value } else if key.is("timeout") { timeout = value } else if key.is("restore") { restore = value }
        default: break
        }
    }

    /// `take`, for a key given as a string.
    mutating func take(_ key: String, _ value: JSON) {
        var key = key
        key.withUTF8 { take($0, value) }
    }

    /// The effect the members describe; `at` locates it for errors.
    func effect(at pointer: () -> String) throws(YaiaError) -> Effect {
        func at(_ key: String) -> String { JSONPointer.appending(pointer(), key) }
        func text(_ value: JSON?, _ key: String) throws(YaiaError) -> String {
            if case .string(let s)? = value, !s.isEmpty { return s }
            // Refused: the error names what is wrong.
            return try MemberReading.string(value, key, at: at(key), code: .badRequest, nonEmpty: true)
        }
        var options = Effect.Options()
        if let timeout {
            guard let seconds = timeout.doubleValue, seconds > 0 else {
                throw YaiaError(.badRequest, "the effect's \"timeout\" must be a positive number of seconds", at: at("timeout"))
            }
            options.timeout = seconds
        }
        if let policy {
            guard case .string(let name) = policy, let known = Effect.Policy(rawValue: name) else {
                throw YaiaError(.badRequest, "the effect's \"policy\" must be one of concurrent, latest, queue", at: at("policy"))
            }
            options.policy = known
        }
        if let restore {
            guard case .string(let name) = restore, let known = Effect.RestorePolicy(rawValue: name) else {
                throw YaiaError(.badRequest, "the effect's \"restore\" must be one of reissue, cancel, await", at: at("restore"))
            }
            options.restore = known
        }
        let service = try text(service, "service"), op = try text(op, "op")
        let then = try then.map { (v) throws(YaiaError) in try text(v, "then") }
        let catchName = try catchName.map { (v) throws(YaiaError) in try text(v, "catch") }
        options.id = try id.map { (v) throws(YaiaError) in try text(v, "id") }
        return Effect(service: service, op: op, args: args ?? .null, then: then, catch: catchName, options: options)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these are the bytes of `name` (a generic `elementsEqual` costs ten times as much).
    @inline(__always)
    func `is`(_ name: StaticString) -> Bool {
        guard count == name.utf8CodeUnitCount, let base = baseAddress else { return false }
        let other = name.utf8Start
        for i in 0..<count where base[i] != other[i] { return false }
        return true
    }
}
