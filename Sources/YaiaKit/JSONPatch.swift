// RFC 6902 JSON Patch: the operations that turn one JSON value into another.
// A view model travels as a patch against the previous one; this file holds
// the operation and its JSON form (read and written here only), and the two
// entry points, `diff` (JSONPatchDiff.swift) and `apply` (JSONPatchApply.swift).

/// A JSON Patch document: operations applied in order, all or none.
package enum JSONPatch {
    /// One operation. Paths are JSON Pointers (RFC 6901) as written on the wire.
    package enum Operation: Sendable, Equatable, CustomStringConvertible {
        case add(path: String, value: JSON)
        case remove(path: String)
        case replace(path: String, value: JSON)
        case move(from: String, path: String)
        case copy(from: String, path: String)
        case test(path: String, value: JSON)

        package var path: String {
            switch self {
            case .add(let path, _), .remove(let path), .replace(let path, _),
                 .move(_, let path), .copy(_, let path), .test(let path, _):
                return path
            }
        }

        /// `{"op": ..., "path": ..., "value"|"from": ...}`.
        package var json: JSON {
            var o = JSONObject(minimumCapacity: 3)
            switch self {
            case let .add(path, value): o["op"] = "add"; o["path"] = .string(path); o["value"] = value
            case let .remove(path): o["op"] = "remove"; o["path"] = .string(path)
            case let .replace(path, value): o["op"] = "replace"; o["path"] = .string(path); o["value"] = value
            case let .move(from, path): o["from"] = .string(from); o["op"] = "move"; o["path"] = .string(path)
            case let .copy(from, path): o["from"] = .string(from); o["op"] = "copy"; o["path"] = .string(path)
            case let .test(path, value): o["op"] = "test"; o["path"] = .string(path); o["value"] = value
            }
            return .object(o)
        }

        /// Reads an operation; `at` is its place in the patch, for errors.
        /// Members the RFC does not name are ignored, as it asks.
        package init(json: JSON, at: String) throws(YaiaError) {
            guard case .object(let o) = json else {
                throw YaiaError(.badPatch, "an operation must be an object, not \(json.kindName)", at: at)
            }
            guard case .string(let op)? = o["op"] else {
                throw YaiaError(.badPatch, "an operation needs \"op\", a string", at: at + "/op")
            }
            func pointer(_ name: String) throws(YaiaError) -> String {
                guard case .string(let p)? = o[name] else {
                    throw YaiaError(.badPatch, "\"\(op)\" needs \"\(name)\", a JSON Pointer string", at: at + "/" + name)
                }
                guard p.isEmpty || p.utf8.first == UInt8(ascii: "/") else {
                    throw YaiaError(.badPatch, "a JSON Pointer is empty or starts with \"/\"", at: at + "/" + name)
                }
                return p
            }
            func value() throws(YaiaError) -> JSON {
                guard let v = o["value"] else {
                    throw YaiaError(.badPatch, "\"\(op)\" needs \"value\"", at: at + "/value")
                }
                return v
            }
            switch op {
            case "add": self = .add(path: try pointer("path"), value: try value())
            case "remove": self = .remove(path: try pointer("path"))
            case "replace": self = .replace(path: try pointer("path"), value: try value())
            case "move": self = .move(from: try pointer("from"), path: try pointer("path"))
            case "copy": self = .copy(from: try pointer("from"), path: try pointer("path"))
            case "test": self = .test(path: try pointer("path"), value: try value())
            default:
                throw YaiaError(.badPatch, "unknown operation \"\(op)\": add, remove, replace, move, copy or test", at: at + "/op")
            }
        }

        package var description: String { json.serialized() }
    }

    /// What a patch may cost when applied: it is input, and `copy` could
    /// otherwise double a document with every operation.
    package struct Limits: Sendable, Equatable {
        /// Operations in one patch.
        package var operations: Int
        /// Nesting of the patched document, as the parser's.
        package var depth: Int
        /// Nodes of the values a patch adds, replaces, copies, moves or
        /// tests, summed over its operations.
        package var nodes: Int

        package init(operations: Int = 1_000_000, depth: Int = JSONParser.defaultMaxDepth, nodes: Int = 10_000_000) {
            self.operations = operations
            self.depth = depth
            self.nodes = nodes
        }
    }

    /// The operations of a patch document, a JSON array.
    package static func operations(_ json: JSON, limits: Limits = Limits()) throws(YaiaError) -> [Operation] {
        guard case .array(let items) = json else {
            throw YaiaError(.badPatch, "a patch is an array of operations, not \(json.kindName)", at: "")
        }
        guard items.count <= limits.operations else {
            throw YaiaError.limit("patch_operations", limits.operations, "the patch has \(items.count) operations", at: "")
        }
        var ops: [Operation] = []
        ops.reserveCapacity(items.count)
        for (i, item) in items.enumerated() { ops.append(try Operation(json: item, at: "/" + String(i))) }
        return ops
    }

    /// The patch document of `operations`.
    package static func json(_ operations: [Operation]) -> JSON {
        .array(operations.map(\.json))
    }

    /// The operations that turn `old` into `new`: `add`, `remove` and
    /// `replace` only. Parts that are the same storage on both sides (a
    /// list the change did not touch) cost one comparison, whatever their size.
    package static func diff(from old: JSON, to new: JSON) -> [Operation] {
        var differ = JSONDiffer()
        differ.diff(old, new, at: "")
        return differ.operations
    }

    /// `document` with `operations` applied in order; a failing operation
    /// fails the patch and leaves nothing half done. Only the containers on
    /// the operations' paths are copied, and not even those when the caller
    /// gives up its document (`apply(ops, to: consume view)`).
    package static func apply(_ operations: [Operation], to document: consuming JSON, limits: Limits = Limits()) throws(YaiaError) -> JSON {
        var applier = JSONPatchApplier(document: consume document, limits: limits)
        try applier.apply(operations)
        return applier.document
    }

    /// `document` with the patch document `patch` (a JSON array) applied.
    package static func apply(patch: JSON, to document: consuming JSON, limits: Limits = Limits()) throws(YaiaError) -> JSON {
        try apply(operations(patch, limits: limits), to: consume document, limits: limits)
    }
}
