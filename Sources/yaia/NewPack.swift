// `yaia new pack NAME [--dir DIR] [--yaia PATH]`: writes a scene pack's
// package (PackTemplate.swift) into a new or empty folder.
import Glibc

struct NewPackCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Write a Swift package that builds into the scene pack libNAME.so.",
        discussion: """
            One scene (NAME/counter), its tests and a README (docs/scenes.md), in a new or empty folder. \
            NAME is a lowercase letter, then lowercase letters, digits, "-" or "_".
            """,
        options: [OptionSpec("dir", help: "Where to write it (default ./NAME): a new or empty folder."),
                  OptionSpec("yaia", value: "path", help: "The Yaia package it depends on, by path (default: the one this yaia was built from).")],
        arguments: [ArgumentSpec(name: "name", help: "The pack's name (like \"shop\" or \"my-scenes\").")]
    )

    var name: String
    var dir: String?
    var yaia: String?

    init(_ given: Arguments) {
        name = given.argument("name")
        dir = given.option("dir")
        yaia = given.option("yaia")
    }

    func run() throws {
        try NewPack.check(name: name)
        let package = try NewPack.yaiaPackage(yaia ?? NewPack.builtFrom, given: yaia != nil)
        try NewPack.write(PackNames(name: name, yaia: package), into: dir ?? name)
    }
}

enum NewPack {
    /// Yaia's folder as this program was built (this file is in Sources/yaia).
    static let builtFrom: String = {
        let parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        return parts.dropLast(3).joined(separator: "/")
    }()

    /// Names Yaia's own products use: a pack's product may not take them.
    static let reserved: Set<String> = ["yaia", "yaia-examples", "yaia-command"]

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
        let hint = given ? "" : " (where this yaia was built); pass --yaia PATH, the folder of Yaia's Package.swift"
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
              swift test --disable-xctest   # Swift Testing only: no XCTest run of zero tests

            """
        Out.stdout(report)
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
            throw .failure("new pack: cannot make the folder \(prefix): \(errnoText())")
        }
        prefix += "/"
    }
}

/// Writes a file that must not exist yet.
func writeNew(_ path: String, _ text: String) throws(CommandError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw .failure("new pack: cannot write \(path): \(errnoText())") }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { raw -> Int in
            guard let base = raw.baseAddress else { return -1 }
            return Glibc.write(fd, base + offset, raw.count - offset)
        }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { throw .failure("new pack: cannot write \(path): \(errnoText())") }
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
