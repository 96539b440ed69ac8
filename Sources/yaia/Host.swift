// What every command shares: output, files, the runtime it hosts through the
// C ABI, and the options that make its config (scenes, plugins, grants).
import CYaia
import Glibc
import YaiaABI
import YaiaCore
import YaiaKit
import YaiaRuntime

/// A command's failure: its message (printed on standard error) and exit status.
struct CommandError: Error {
    let status: Int32
    let message: String

    /// Bad usage (status 2): a bad argument, a file that is not there.
    static func usage(_ message: String) -> CommandError { CommandError(status: 2, message: message) }
    /// The work failed (status 1).
    static func failure(_ message: String) -> CommandError { CommandError(status: 1, message: message) }
}

enum Out {
    static func stdout(_ text: String) { write(1, text) }
    static func stderr(_ text: String) { write(2, text) }
    static func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.write(fd, base + offset, raw.count - offset)
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }
}

/// A file's text, or nil when it cannot be read.
func readAll(_ path: String) -> String? {
    readFile(path).map { String(decoding: $0, as: UTF8.self) }
}

/// Writes (or replaces) a file.
func writeFile(_ path: String, _ text: String) throws(CommandError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw .failure("cannot write \(path): \(errnoText())") }
    defer { close(fd) }
    Out.write(fd, text)
}

func parseJSON(_ text: String) -> JSON? { try? JSONParser.parse(text) }

extension StringProtocol {
    /// Without the blanks around it (a line's "\r" too).
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}

/// The folder a path is in.
func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// The files named `*suffix` in `path` (a file: itself) and its subfolders, sorted.
func files(in path: String, endingWith suffix: String) -> [String] {
    guard kind(of: path) == .directory else { return [path] }
    guard let dir = opendir(path) else { return [] }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if !name.hasPrefix(".") { names.append(name) }
    }
    closedir(dir)
    let base = path.hasSuffix("/") ? path : path + "/"
    var found: [String] = []
    for name in names.sorted() {
        let full = base + name
        switch kind(of: full) {
        case .directory: found += files(in: full, endingWith: suffix)
        case .file where name.hasSuffix(suffix): found.append(full)
        default: break
        }
    }
    return found
}

// MARK: - JSON for people

extension JSON {
    /// Compact canonical text.
    var text: String { serialized() }

    /// Indented text, two spaces a level, for files people read and edit.
    func pretty(_ indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .array(let items) where !items.isEmpty:
            return "[\n" + items.map { inner + $0.pretty(inner) }.joined(separator: ",\n") + "\n" + indent + "]"
        case .object(let object) where !object.isEmpty:
            return "{\n" + object.members.map { inner + JSON.string($0.key).text + ": " + $0.value.pretty(inner) }
                .joined(separator: ",\n") + "\n" + indent + "}"
        default:
            return text
        }
    }

    /// The value at a JSON Pointer.
    func at(pointer: String) -> JSON? {
        var value = self
        for raw in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let token = String(raw).replacing("~1", with: "/").replacing("~0", with: "~")
            switch value {
            case .object(let o): guard let next = o[token] else { return nil }; value = next
            case .array(let a): guard let i = Int(token), a.indices.contains(i) else { return nil }; value = a[i]
            default: return nil
            }
        }
        return value
    }
}

// MARK: - The runtime

/// A runtime hosted through the C ABI.
final class Host {
    let rt: OpaquePointer

    init(config: JSON) throws(CommandError) {
        var errorText: UnsafeMutablePointer<CChar>?
        guard let rt = yaia_runtime_new(config.text, &errorText) else {
            let message = errorText.map { String(cString: $0) } ?? "cannot create the runtime"
            yaia_free(errorText)
            // The envelope as the runtime gave it: the config is the user's.
            throw .usage(message)
        }
        self.rt = rt
    }

    deinit { yaia_runtime_free(rt) }

    /// A request's response, as text.
    func execute(text request: String) -> String {
        guard let response = yaia_execute(rt, request) else { return #"{"error":{"code":"internal","message":"no response"},"ok":false}"# }
        defer { yaia_free(response) }
        return String(cString: response)
    }

    func execute(_ request: JSON) -> JSON {
        let text = execute(text: request.text)
        return parseJSON(text) ?? ["ok": false, "error": ["code": "internal", "message": .string("unreadable response: " + text)]]
    }

    /// The next event within `seconds`, nil on time-out.
    func receive(_ seconds: Double) -> String? {
        guard let event = yaia_receive(rt, seconds) else { return nil }
        defer { yaia_free(event) }
        return String(cString: event)
    }

    /// The scene types a config entry brought (a pack, a document, a folder),
    /// from the `scenes` op: for packs by path, for documents by file.
    func sceneTypes(from path: String) -> [String] {
        let answer = execute(["op": "scenes"])
        let real = realPath(path) ?? path
        var names: [String] = []
        for pack in answer["packs"]?.arrayValue ?? [] where pack["path"]?.stringValue == real {
            names += (pack["scenes"]?.arrayValue ?? []).compactMap(\.stringValue)
        }
        let prefix = real.hasSuffix("/") ? real : real + "/"
        for document in answer["documents"]?.arrayValue ?? [] {
            guard let file = document["file"]?.stringValue, let scene = document["scene"]?.stringValue else { continue }
            let resolved = realPath(file) ?? file
            if resolved == real || (kind(of: real) == .directory && resolved.hasPrefix(prefix)) { names.append(scene) }
        }
        return names.sorted()
    }

    /// Every scene type of the catalog.
    var allSceneTypes: [String] {
        (execute(["op": "scenes"])["types"]?.arrayValue ?? []).compactMap(\.stringValue)
    }
}

func realPath(_ path: String) -> String? {
    guard let real = realpath(path, nil) else { return nil }
    defer { free(real) }
    return String(cString: real)
}

/// An error envelope's one-line text: "code: message (at /pointer)".
func errorLine(_ response: JSON) -> String {
    let error = response["error"] ?? .null
    var line = (error["code"]?.stringValue ?? "error") + ": " + (error["message"]?.stringValue ?? response.text)
    if let at = error["at"]?.stringValue { line += " (at \(at))" }
    return line
}

// MARK: - Options every runtime-making command takes

/// What a command's runtime is made of, and what requests may do there.
///
/// The person at the terminal is the host: by default every privileged op is
/// granted on any file. `--allow` and `--allow-files` narrow that (each
/// replaces its half of the grant); a `--config` with an "allow" of its own
/// is taken as the starting point instead. A command also grants what it
/// needs itself (the `replay` op and the journal's folder, say).
struct HostOptions: Sendable {
    static let options = [
        OptionSpec("scenes", value: "path", help: "A scene pack, a scene document or a folder of them to load (repeatable).",
                   repeatable: true),
        OptionSpec("plugin", value: "path", help: "A service plugin to load (repeatable).", repeatable: true),
        OptionSpec("config", value: "json|@file", help: "The runtime config, inline JSON or @FILE (docs/abi.md, yaia.h)."),
        OptionSpec("allow", value: "op", help: "A privileged op requests may use (repeatable), `all` (the default) or `none`.",
                   repeatable: true),
        OptionSpec("allow-files", value: "dir", help: "A folder whose files requests may name (repeatable; default: any file).",
                   repeatable: true),
    ]

    var scenes: [String]
    var plugins: [String]
    var config: String?
    var allow: [String]
    var allowFiles: [String]

    init(_ given: Arguments) {
        scenes = given.values("scenes")
        plugins = given.values("plugin")
        config = given.option("config")
        allow = given.values("allow")
        allowFiles = given.values("allow-files")
    }

    /// The config: `--config`, then the scenes, plugins and grants given.
    func makeConfig(scenes extra: [String] = [], ops needed: [String] = [], files neededFiles: [String] = []) throws(CommandError) -> JSON {
        var config: JSONObject = [:]
        if let given = self.config {
            var text = given
            if given.hasPrefix("@") {
                guard let read = readAll(String(given.dropFirst())) else { throw .usage("cannot read \(given.dropFirst())") }
                text = read
            }
            let parsed: JSON
            do { parsed = try JSONParser.parse(text) } catch { throw .usage("--config is not JSON: \(error.message)") }
            // The runtime judges anything else (bad_config).
            guard case .object(let object) = parsed else { throw .usage("--config must be a JSON object") }
            config = object
        }
        let scenes = scenes + extra
        if !scenes.isEmpty {
            config["scenes"] = .array((config["scenes"]?.arrayValue ?? []) + scenes.map(JSON.string))
        }
        if !plugins.isEmpty {
            config["plugins"] = .array((config["plugins"]?.arrayValue ?? []) + plugins.map(JSON.string))
        }
        // An "allow" that is no object is the runtime's to refuse (bad_config).
        if let given = config["allow"], given.objectValue == nil { return .object(config) }
        var grant: JSONObject = config["allow"]?.objectValue ?? ["ops": "all", "files": ["/"]]
        if config["allow"] == nil || !allow.isEmpty {
            if allow.isEmpty || allow.contains("all") {
                grant["ops"] = "all"
            } else {
                grant["ops"] = .array(allow.filter { $0 != "none" }.map(JSON.string))
            }
        }
        if !allowFiles.isEmpty { grant["files"] = .array(allowFiles.map(JSON.string)) }
        // What the command itself asks of its runtime.
        if case .array(let ops)? = grant["ops"] {
            grant["ops"] = .array(ops + needed.filter { !ops.contains(.string($0)) }.map(JSON.string))
        }
        if !neededFiles.isEmpty {
            let files = grant["files"]?.arrayValue ?? []
            grant["files"] = .array(files + neededFiles.map(JSON.string))
        }
        config["allow"] = .object(grant)
        return .object(config)
    }

    func host(scenes extra: [String] = [], ops: [String] = [], files: [String] = []) throws(CommandError) -> Host {
        try Host(config: makeConfig(scenes: extra, ops: ops, files: files))
    }
}
