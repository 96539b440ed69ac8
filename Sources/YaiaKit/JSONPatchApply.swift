// Applying RFC 6902 operations to a JSON value, in place along the path
// each one names: the rest of the document is neither walked nor copied.

struct JSONPatchApplier {
    var document: JSON
    let limits: JSONPatch.Limits
    /// Nodes of the values measured so far (JSONPatch.Limits.nodes).
    private var nodes = 0

    init(document: JSON, limits: JSONPatch.Limits) {
        self.document = document
        self.limits = limits
    }

    mutating func apply(_ operations: [JSONPatch.Operation]) throws(YaiaError) {
        guard operations.count <= limits.operations else {
            throw YaiaError.limit("patch_operations", limits.operations, "the patch has \(operations.count) operations", at: "")
        }
        for (i, op) in operations.enumerated() { try apply(op, at: "/" + String(i)) }
    }

    private mutating func apply(_ op: JSONPatch.Operation, at: String) throws(YaiaError) {
        switch op {
        case let .add(path, value):
            let to = try Self.tokens(path, at: at + "/path")
            try measure(value, below: to.count, at: at + "/value")
            try add(value, to, at: at + "/path")
        case let .remove(path):
            _ = try remove(try Self.tokens(path, at: at + "/path"), at: at + "/path")
        case let .replace(path, value):
            let to = try Self.tokens(path, at: at + "/path")
            try measure(value, below: to.count, at: at + "/value")
            try replace(to, with: value, at: at + "/path")
        case let .move(from, path):
            let source = try Self.tokens(from, at: at + "/from")
            let to = try Self.tokens(path, at: at + "/path")
            if source == to {
                _ = try value(source, at: at + "/from")
                return
            }
            guard !(to.count > source.count && to.starts(with: source)) else {
                throw YaiaError(.badPatch, "a value cannot move into itself", at: at + "/path")
            }
            let moved = try remove(source, at: at + "/from")
            try measure(moved, below: to.count, at: at + "/from")
            try add(moved, to, at: at + "/path")
        case let .copy(from, path):
            let copied = try value(try Self.tokens(from, at: at + "/from"), at: at + "/from")
            let to = try Self.tokens(path, at: at + "/path")
            try measure(copied, below: to.count, at: at + "/from")
            try add(copied, to, at: at + "/path")
        case let .test(path, expected):
            let actual = try value(try Self.tokens(path, at: at + "/path"), at: at + "/path")
            try measure(expected, below: 0, at: at + "/value")
            guard actual == expected else {
                throw YaiaError(.patchTestFailed, "the value at \(path.isEmpty ? "the root" : path) is not the one the patch expects", at: at + "/value")
            }
        }
    }

    private static func tokens(_ pointer: String, at: String) throws(YaiaError) -> [String] {
        guard let tokens = JSONPointer.tokens(pointer) else {
            throw YaiaError(.badPatch, "not a JSON Pointer: it is empty or starts with \"/\", and ~ is followed by 0 or 1", at: at)
        }
        return tokens
    }

    // MARK: - Operations on the target's container

    private mutating func add(_ value: JSON, _ tokens: [String], at: String) throws(YaiaError) {
        guard !tokens.isEmpty else { document = value; return }
        try Self.withContainer(&document, tokens[...], at: at) { (parent: inout JSON, last: String) throws(YaiaError) in
            switch parent {
            case .object(var o):
                parent = .null
                o[last] = value
                parent = .object(o)
            case .array(var a):
                let i: Int
                if last == "-" {
                    i = a.count
                } else {
                    guard let index = JSONPointer.index(last), index <= a.count else {
                        throw YaiaError(.badPatch, "\"\(last)\" is no index from 0 to \(a.count), nor \"-\"", at: at)
                    }
                    i = index
                }
                parent = .null
                a.insert(value, at: i)
                parent = .array(a)
            default:
                throw YaiaError(.badPatch, "cannot add a member to \(parent.kindName)", at: at)
            }
        }
    }

    private mutating func remove(_ tokens: [String], at: String) throws(YaiaError) -> JSON {
        guard !tokens.isEmpty else { throw YaiaError(.badPatch, "the whole document cannot be removed", at: at) }
        return try Self.withContainer(&document, tokens[...], at: at) { (parent: inout JSON, last: String) throws(YaiaError) -> JSON in
            switch parent {
            case .object(var o):
                guard let old = o[last] else { throw Self.missing(last, at: at) }
                parent = .null
                o[last] = nil
                parent = .object(o)
                return old
            case .array(var a):
                guard let i = JSONPointer.index(last), i < a.count else { throw Self.missing(last, at: at) }
                parent = .null
                let old = a.remove(at: i)
                parent = .array(a)
                return old
            default:
                throw Self.missing(last, at: at)
            }
        }
    }

    private mutating func replace(_ tokens: [String], with value: JSON, at: String) throws(YaiaError) {
        guard !tokens.isEmpty else { document = value; return }
        try Self.withContainer(&document, tokens[...], at: at) { (parent: inout JSON, last: String) throws(YaiaError) in
            try Self.withChild(&parent, last, at: at) { (target: inout JSON) in target = value }
        }
    }

    private func value(_ tokens: [String], at: String) throws(YaiaError) -> JSON {
        var current = document
        for token in tokens {
            switch current {
            case .object(let o):
                guard let child = o[token] else { throw Self.missing(token, at: at) }
                current = child
            case .array(let a):
                guard let i = JSONPointer.index(token), i < a.count else { throw Self.missing(token, at: at) }
                current = a[i]
            default:
                throw Self.missing(token, at: at)
            }
        }
        return current
    }

    private static func missing(_ token: String, at: String) -> YaiaError {
        YaiaError(.badPatch, "the path names nothing: no member or element \"\(token)\"", at: at)
    }

    // MARK: - Reaching a target in place

    /// Runs `body` on the container of the last token's target, and that token.
    private static func withContainer<T>(
        _ doc: inout JSON, _ tokens: ArraySlice<String>, at: String,
        _ body: (inout JSON, String) throws(YaiaError) -> T
    ) throws(YaiaError) -> T {
        guard let first = tokens.first else { throw YaiaError(.internal, "a patch path ran out of tokens", at: at) }
        if tokens.count == 1 { return try body(&doc, first) }
        let rest = tokens.dropFirst()
        return try withChild(&doc, first, at: at) { (child: inout JSON) throws(YaiaError) -> T in
            try withContainer(&child, rest, at: at, body)
        }
    }

    /// Runs `body` on the existing member or element `token` of `doc`, in place.
    private static func withChild<T>(
        _ doc: inout JSON, _ token: String, at: String,
        _ body: (inout JSON) throws(YaiaError) -> T
    ) throws(YaiaError) -> T {
        switch doc {
        case .object(var o):
            guard o[token] != nil else { throw missing(token, at: at) }
            // Out of `doc` while it changes, so that its storage is not shared.
            doc = .null
            defer { doc = .object(o) }
            return try o.update(token, absent: .null, body)
        case .array(var a):
            guard let i = JSONPointer.index(token), i < a.count else { throw missing(token, at: at) }
            doc = .null
            defer { doc = .array(a) }
            return try body(&a[i])
        default:
            throw missing(token, at: at)
        }
    }

    // MARK: - Limits

    /// Counts `value`'s nodes against the patch's budget, and checks that it
    /// fits the depth limit once placed under `depth` containers.
    private mutating func measure(_ value: JSON, below depth: Int, at: String) throws(YaiaError) {
        switch value {
        case .array(let a):
            try count(1, at: at)
            try deeper(depth + 1, at: at)
            for child in a { try measure(child, below: depth + 1, at: at) }
        case .object(let o):
            try count(1, at: at)
            try deeper(depth + 1, at: at)
            for member in o.members { try measure(member.value, below: depth + 1, at: at) }
        default:
            try count(1, at: at)
        }
    }

    private mutating func count(_ n: Int, at: String) throws(YaiaError) {
        nodes += n
        guard nodes <= limits.nodes else {
            throw YaiaError.limit("patch_nodes", limits.nodes, "the patch's values have more nodes than allowed", at: at)
        }
    }

    private func deeper(_ depth: Int, at: String) throws(YaiaError) {
        guard depth <= limits.depth else {
            throw YaiaError.limit("depth", limits.depth, "the patched document would nest deeper than allowed", at: at)
        }
    }
}
