import Glibc
import YaiaCore
import YaiaKit

/// What the request path (`yaia_execute`) may do beyond the ordinary ops,
/// as the runtime's config grants it: the config is the host's word,
/// requests may come from anyone the host forwards them from.
public struct Grants: Sendable, Equatable {
    /// Ops that reach code, files, services directly or the runtime as a
    /// whole: refused on the request path unless granted (OpTable.swift).
    public static let privilegedOps: Set<String> = Set(Op.all.filter(\.privileged).map(\.name))

    /// The granted privileged ops.
    public var ops: Set<String>
    /// Directories (canonical, without a trailing slash but for "/") that
    /// files named by requests must lie in.
    public var directories: [String]

    public init(ops: Set<String> = [], directories: [String] = []) {
        self.ops = ops
        self.directories = directories
    }

    /// Everything, anywhere: for programs whose requests all come from their own user.
    public static let all = Grants(ops: privilegedOps, directories: ["/"])

    /// Reads `{"ops": [OP, ...] | "all", "files": [DIR, ...]}` (the config's "allow").
    public init(config: JSON, at pointer: String) throws(YaiaError) {
        guard case .object(let o) = config else {
            throw YaiaError(.badConfig, "\"allow\" must be an object: {\"ops\": [...], \"files\": [...]}", at: pointer)
        }
        for (key, _) in o where key != "ops" && key != "files" {
            throw YaiaError(.badConfig, "unknown \"allow\" key \"\(key)\"" + Suggestion.hint(key, among: ["ops", "files"]),
                            at: JSONPointer.appending(pointer, key))
        }
        self.init()
        switch o["ops"] {
        case nil: break
        case .string("all")?: ops = Grants.privilegedOps
        case .array(let items)?:
            for (i, item) in items.enumerated() {
                let at = JSONPointer.appending(pointer + "/ops", i)
                guard case .string(let op) = item else { throw YaiaError(.badConfig, "an op to allow is a string", at: at) }
                guard Grants.privilegedOps.contains(op) else {
                    let why = Op.named[op] != nil ? "\"\(op)\" is always allowed; list only privileged ops"
                        : "\"\(op)\" is not a privileged op" + Suggestion.hint(op, among: Grants.privilegedOps)
                    throw YaiaError(.badConfig, why + " (" + Grants.privilegedOps.sorted().joined(separator: ", ") + ")", at: at)
                }
                ops.insert(op)
            }
        case let other?:
            throw YaiaError(.badConfig, "\"ops\" must be \"all\" or an array of op names, not \(other.kindName)", at: pointer + "/ops")
        }
        if let files = o["files"] {
            guard case .array(let items) = files else {
                throw YaiaError(.badConfig, "\"files\" must be an array of directories", at: pointer + "/files")
            }
            for (i, item) in items.enumerated() {
                let at = JSONPointer.appending(pointer + "/files", i)
                guard case .string(let dir) = item, !dir.isEmpty else { throw YaiaError(.badConfig, "a directory is a non-empty path", at: at) }
                guard let real = canonicalPath(dir), fileType(real) == S_IFDIR else {
                    throw YaiaError(.badConfig, "\(dir) is not an existing directory", at: at)
                }
                directories.append(real)
            }
        }
    }

    /// `not_permitted` unless `op` is ordinary or granted.
    func check(_ op: Op) throws(YaiaError) {
        guard op.privileged, !ops.contains(op.name) else { return }
        throw YaiaError(.notPermitted, "\"\(op.name)\" is not permitted on this runtime's requests; the host grants it in the config: {\"allow\": {\"ops\": [\"\(op.name)\"]}}",
                        at: "/op")
    }

    /// The path of a file a request names, once it is known to lie inside a
    /// granted directory: relative paths are taken from the working
    /// directory, and its directory and, when it exists, the file itself are
    /// resolved through symbolic links before they are compared. Else `not_permitted`.
    func confine(_ path: String, at pointer: String) throws(YaiaError) -> String {
        func refuse(_ why: String) -> YaiaError {
            let dirs = directories.isEmpty ? "none are granted ({\"allow\": {\"files\": [DIR, ...]}})"
                : "granted: " + directories.joined(separator: ", ")
            return YaiaError(.notPermitted, "\(path): \(why); requests may name files only inside the directories the config grants (\(dirs))", at: pointer)
        }
        guard !directories.isEmpty else { throw refuse("no directory is granted") }
        guard !path.isEmpty, !path.utf8.contains(0) else { throw refuse("not a file path") }
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let parent = slash.map { $0 == path.utf8.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.utf8.index(after: $0)...]) } ?? path
        guard !name.isEmpty, name != ".", name != ".." else { throw refuse("not a file name") }
        guard let realParent = canonicalPath(parent) else {
            // Nothing can be opened there; with every directory granted, the op reports that itself.
            if directories == ["/"] { return path }
            throw refuse("its directory does not exist")
        }
        var resolved = realParent == "/" ? "/" + name : realParent + "/" + name
        // A symbolic link must not lead out of the granted directories.
        var info = stat()
        if lstat(resolved, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
            guard let target = canonicalPath(resolved) else { throw refuse("a symbolic link to nothing") }
            resolved = target
        }
        guard directories.contains(where: { beneath(resolved, $0) }) else { throw refuse("outside the granted directories") }
        return resolved
    }

    var json: JSON {
        ["ops": .array(ops.sorted().map(JSON.string)), "files": .array(directories.map(JSON.string))]
    }
}

/// `path` with every symbolic link, `.` and `..` resolved, or nil when it does not exist.
func canonicalPath(_ path: String) -> String? {
    guard let p = realpath(path, nil) else { return nil }
    defer { free(p) }
    return String(cString: p)
}

/// Whether canonical `path` lies beneath canonical `dir`.
func beneath(_ path: String, _ dir: String) -> Bool {
    path != dir && path.hasPrefix(dir == "/" ? "/" : dir + "/")
}

/// Bounds on what requests, services and files can make a runtime hold.
/// Each is reached with `limit_exceeded`, and the runtime stays usable.
public struct Limits: Sendable, Equatable {
    /// Bytes of any one JSON text given to the runtime: a request, an
    /// action, open arguments, an outcome, a service's result.
    public var requestBytes = 16 << 20
    /// Nesting of arrays and objects in the values a runtime holds: scene
    /// states, documents, arguments, results. The texts that carry them may
    /// nest `wrapping` levels more. At most 512: values are parsed, compared,
    /// written and freed recursively, on the caller's stack, and 512 levels
    /// stay within a small thread stack.
    public var depth = JSONParser.defaultMaxDepth
    /// Events waiting in the queue for yaia_receive(); beyond it the oldest is dropped.
    public var events = 65_536
    /// Open scenes, in flows or not.
    public var scenes = 100_000
    /// Service calls in progress on one thread, counting each call a
    /// service makes back into the runtime that performs an effect inline.
    public var reentry = 8
    /// Steps a JSON Logic evaluation may take before the share of the data
    /// it reads: a scene document's reduction, opening or view model, a
    /// `logic` request (LogicBudget, docs/logic.md).
    public var logicSteps = LogicBudget.defaultBase

    public init() {}

    /// Levels a JSON text given to the runtime (a request, the config, a
    /// journal line) may nest beyond `depth`: room for what wraps the values
    /// it carries, a request around a snapshot around a list of scenes
    /// around a state.
    public static let wrapping = 8
    /// Levels a snapshot may nest: room for `depth` levels of a state,
    /// arguments or a result inside it, and for the text that carries it
    /// back (a restore request, a config, a journal line). A deeper one is
    /// refused when taken, so every snapshot taken can be restored.
    public var snapshotDepth: Int { depth + Limits.wrapping - 2 }
    /// The most a text may nest, whatever the limits: the config is read before its limits are.
    public static let maxTextDepth = JSONParser.defaultMaxDepth + wrapping

    static let bounds: [(name: String, range: ClosedRange<Int>)] = [
        ("request_bytes", 64...(1 << 30)),
        ("depth", 1...JSONParser.defaultMaxDepth),
        ("events", 1...(1 << 24)),
        ("scenes", 1...(1 << 24)),
        ("reentry", 1...64),
        ("logic_steps", 1...LogicBudget.maxBase),
    ]

    /// A limit by its config name.
    subscript(name: String) -> Int {
        get {
            switch name {
            case "request_bytes": requestBytes
            case "depth": depth
            case "events": events
            case "scenes": scenes
            case "logic_steps": logicSteps
            default: reentry
            }
        }
        set {
            switch name {
            case "request_bytes": requestBytes = newValue
            case "depth": depth = newValue
            case "events": events = newValue
            case "scenes": scenes = newValue
            case "logic_steps": logicSteps = newValue
            default: reentry = newValue
            }
        }
    }

    /// Reads `{"request_bytes": N, "depth": N, "events": N, "scenes": N, "reentry": N, "logic_steps": N}` (the config's "limits").
    public init(config: JSON, at pointer: String) throws(YaiaError) {
        guard case .object(let o) = config else { throw YaiaError(.badConfig, "\"limits\" must be an object", at: pointer) }
        self.init()
        let names = Limits.bounds.map(\.name)
        for (key, value) in o {
            let at = JSONPointer.appending(pointer, key)
            guard let bound = Limits.bounds.first(where: { $0.name == key }) else {
                throw YaiaError(.badConfig, "unknown limit \"\(key)\"" + Suggestion.hint(key, among: names)
                                + " (" + names.joined(separator: ", ") + ")", at: at)
            }
            self[key] = Int(try MemberReading.integer(value, key, at: at, code: .badConfig, in: Int64(bound.range.lowerBound)...Int64(bound.range.upperBound)))
        }
    }

    var json: JSON {
        .object(JSONObject(Limits.bounds.map { ($0.name, JSON.int(Int64(self[$0.name]))) }))
    }

    public func checkSize(_ count: Int) throws(YaiaError) {
        guard count <= requestBytes else { throw YaiaError.limit("request_bytes", requestBytes, "a JSON text of \(counted(count, "byte"))") }
    }

    /// Parses a JSON text given to the runtime, within the size and depth
    /// limits (`depth` and the `wrapping` around the values it carries).
    public func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(YaiaError) -> JSON {
        try checkSize(bytes.count)
        return try JSONParser.parse(bytes, maxDepth: depth + Limits.wrapping)
    }
}

extension Runtime {
    /// `{"op": "limits"}`: the limits, the grants, and how close the runtime is to them.
    func limitReport() -> JSON {
        let (queued, dropped) = events.counts
        let open = lock.withLock { state.scenes.count }
        return ["ok": true, "limits": limits.json, "allow": grants.json,
                "usage": ["events": .int(Int64(queued)), "dropped": .int(Int64(dropped)), "scenes": .int(Int64(open)),
                          "logic_rules": .int(Int64(logicRules.count))]]
    }
}
