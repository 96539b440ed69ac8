// `yaia-cli new pack NAME [--dir DIR] [--yaia PATH]`: writes a scene pack's
// package (PackTemplate.swift) into a new or empty folder.
import Glibc

/// A failure with its exit status: 2 for bad usage, 1 for a failed write.
struct CommandError: Error {
    let status: Int32
    let message: String

    static func usage(_ message: String) -> CommandError { CommandError(status: 2, message: message) }
}

enum NewCommand {
    static let usage = """
        usage: yaia-cli new pack NAME [--dir DIR] [--yaia PATH]
          Writes a Swift package that builds into the scene pack libNAME.so: one
          scene (NAME/counter), its tests, a README. NAME is a lowercase letter,
          then lowercase letters, digits, "-" or "_".
          --dir DIR    where to write it (default ./NAME); a new or empty folder
          --yaia PATH  the Yaia package it depends on, by path
                       (default \(builtFrom))

        """

    /// Yaia's folder as this program was built (this file is in Sources/yaia).
    static let builtFrom: String = {
        let parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        return parts.dropLast(3).joined(separator: "/")
    }()

    /// Names Yaia's own products use: a pack's product may not take them.
    static let reserved: Set<String> = ["yaia", "yaia-examples", "yaia-cli"]

    /// Runs the command on the arguments after "new"; returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            FileHandleOut.stdout(usage)
            return 0
        }
        let names: PackNames, dir: String
        do {
            (names, dir) = try parse(arguments)
        } catch {
            FileHandleOut.stderr("yaia-cli: \(error.message)\n(yaia-cli new --help shows how to use it)\n")
            return error.status
        }
        do {
            try write(names, into: dir)
            return 0
        } catch {
            FileHandleOut.stderr("yaia-cli: \(error.message)\n")
            return error.status
        }
    }

    static func parse(_ arguments: [String]) throws(CommandError) -> (PackNames, String) {
        guard let kind = arguments.first else { throw .usage("new: what? yaia-cli new pack NAME") }
        guard kind == "pack" else { throw .usage("new: cannot make \"\(kind)\", only a pack: yaia-cli new pack NAME") }
        var name: String?
        var dir: String?
        var yaia: String?
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            var option = argument
            var value: String?
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                option = String(argument[..<eq])
                value = String(argument[argument.index(after: eq)...])
            }
            switch option {
            case "--dir", "--yaia":
                if value == nil { value = rest.popFirst() }
                guard let value, !value.isEmpty else { throw .usage("new pack: \(option) needs a path") }
                if option == "--dir" { dir = value } else { yaia = value }
            default:
                if argument.hasPrefix("-") { throw .usage("new pack: unknown option \(argument)") }
                guard name == nil else { throw .usage("new pack: one NAME only (given \"\(name ?? "")\" and \"\(argument)\")") }
                name = argument
            }
        }
        guard let name else { throw .usage("new pack: NAME is missing: yaia-cli new pack NAME") }
        try check(name: name)
        let package = try yaiaPackage(yaia ?? builtFrom, given: yaia != nil)
        return (PackNames(name: name, yaia: package), dir ?? name)
    }

    static func check(name: String) throws(CommandError) {
        let bytes = Array(name.utf8)
        let valid = bytes.first.map { $0 >= 0x61 && $0 <= 0x7A } == true && bytes.allSatisfy {
            ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F
        }
        guard valid else {
            throw .usage("new pack: invalid NAME \"\(name)\": a lowercase letter, then lowercase letters, digits, "
                         + "\"-\" or \"_\" (like \"shop\" or \"my-scenes\")")
        }
        guard bytes.count <= 64 else { throw .usage("new pack: NAME is longer than 64 characters") }
        guard !reserved.contains(name) else {
            throw .usage("new pack: \"\(name)\" is the name of one of Yaia's own products; choose another")
        }
    }

    /// The absolute path of the Yaia package at `path`, or a usage error.
    static func yaiaPackage(_ path: String, given: Bool) throws(CommandError) -> String {
        let hint = given ? "" : " (where this yaia-cli was built); pass --yaia PATH, the folder of Yaia's Package.swift"
        guard let real = realpath(path, nil) else { throw .usage("new pack: no Yaia package at \(path)\(hint)") }
        let absolute = String(cString: real)
        free(real)
        guard kind(of: absolute + "/Package.swift") == .file, kind(of: absolute + "/Sources/YaiaKit") == .directory else {
            throw .usage("new pack: no Yaia package at \(absolute)\(hint)")
        }
        return absolute
    }

    static func write(_ names: PackNames, into dir: String) throws(CommandError) {
        switch kind(of: dir) {
        case .missing: break
        case .directory:
            guard isEmptyDirectory(dir) else {
                throw .usage("new pack: \(dir) exists and is not empty; new pack writes into a new or empty folder")
            }
        case .file, .other:
            throw .usage("new pack: \(dir) exists and is not a folder")
        }
        // SwiftPM names a package given by path after its folder: two folders
        // of the same name would be one package to it.
        let folder = lastComponent(absolute(dir))
        if folder.lowercased() == lastComponent(names.yaia).lowercased() {
            throw .usage("new pack: \(dir) has the name of Yaia's folder (\(names.yaia)), which SwiftPM would take "
                         + "for the same package; choose another --dir")
        }
        let files = packFiles(names)
        try makeDirectories(dir)
        for file in files {
            let path = dir + "/" + file.path
            if let slash = path.lastIndex(of: "/") { try makeDirectories(String(path[..<slash])) }
            try writeNew(path, file.text)
        }
        let shown = dir.hasSuffix("/") ? String(dir.dropLast()) : dir
        var report = "created the scene pack \(names.name) in \(shown) (scene \(names.scene); Yaia at \(names.yaia)):\n"
        for file in files { report += "  \(file.path)\n" }
        report += """
            next:
              cd \(shellQuoted(shown))
              swift build -c release -Xswiftc -static-stdlib   # .build/release/\(names.library)
              swift test

            """
        FileHandleOut.stdout(report)
    }
}

// MARK: - Files, with Glibc alone

enum FileKind { case missing, file, directory, other }

func kind(of path: String) -> FileKind {
    var info = stat()
    guard stat(path, &info) == 0 else { return .missing }
    switch info.st_mode & S_IFMT {
    case S_IFDIR: return .directory
    case S_IFREG: return .file
    default: return .other
    }
}

func isEmptyDirectory(_ path: String) -> Bool {
    guard let dir = opendir(path) else { return false }
    defer { closedir(dir) }
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != "." && name != ".." { return false }
    }
    return true
}

func absolute(_ path: String) -> String {
    if path.hasPrefix("/") { return path }
    guard let cwd = getcwd(nil, 0) else { return path }
    defer { free(cwd) }
    return String(cString: cwd) + "/" + path
}

/// The folder name a path ends with ("." skipped, a trailing ".." resolved by name).
func lastComponent(_ path: String) -> String {
    var parts = path.split(separator: "/").map(String.init).filter { $0 != "." }
    while parts.last == ".." {
        parts.removeLast()
        if !parts.isEmpty { parts.removeLast() }
    }
    return parts.last ?? ""
}

func errnoText() -> String { String(cString: strerror(errno)) }

/// `mkdir -p`.
func makeDirectories(_ path: String) throws(CommandError) {
    var prefix = path.hasPrefix("/") ? "/" : ""
    for part in path.split(separator: "/") {
        prefix += part
        if mkdir(prefix, 0o755) != 0 && !(errno == EEXIST && kind(of: prefix) == .directory) {
            throw CommandError(status: 1, message: "new pack: cannot make the folder \(prefix): \(errnoText())")
        }
        prefix += "/"
    }
}

/// Writes a file that must not exist yet.
func writeNew(_ path: String, _ text: String) throws(CommandError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw CommandError(status: 1, message: "new pack: cannot write \(path): \(errnoText())") }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { raw -> Int in
            guard let base = raw.baseAddress else { return -1 }
            return Glibc.write(fd, base + offset, raw.count - offset)
        }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { throw CommandError(status: 1, message: "new pack: cannot write \(path): \(errnoText())") }
        offset += n
    }
}

/// `text` as one shell word.
func shellQuoted(_ text: String) -> String {
    let plain = text.utf8.allSatisfy { b in
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || "-_./+,:@".utf8.contains(b)
    }
    if plain && !text.isEmpty { return text }
    return "'" + text.replacing("'", with: "'\\''") + "'"
}
