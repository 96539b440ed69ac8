// yaia-cli -- the runtime from the command line, through the same C ABI as
// every host, and the scaffolding of scene packs.
//
//   yaia-cli [--config JSON|@FILE] [REQUEST ...]
//   yaia-cli new pack NAME [--dir DIR] [--yaia PATH]
//   yaia-cli help | --help | --version
//
// Each REQUEST argument is a JSON request for yaia_execute; its response is
// printed on a line of its own. Without REQUEST arguments, requests are read
// from standard input, one per line; a line "receive [SECONDS]" prints the
// next event instead (or nothing on time-out). `new pack` is NewPack.swift.
// Exit status: 1 if any response was an error envelope (or `new` could not
// write a file), 2 for bad usage.
import CYaia
import Glibc
import YaiaABI

func fail(_ message: String) -> Never {
    FileHandleOut.stderr("yaia-cli: \(message)\n")
    exit(2)
}

enum FileHandleOut {
    static func stdout(_ text: String) { write(1, text) }
    static func stderr(_ text: String) { write(2, text) }
    private static func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.write(fd, base + offset, raw.count - offset)
            }
            if n <= 0 { return }
            offset += n
        }
    }
}

func readAll(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var text: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n == 0 { break }
        text.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: text, as: UTF8.self)
}

let usage = """
    usage: yaia-cli [--config JSON|@FILE] [REQUEST ...]
           yaia-cli new pack NAME [--dir DIR] [--yaia PATH]
           yaia-cli help | --help | --version

    Requests
      Runs each JSON REQUEST (see yaia.h, docs/abi.md) and prints its response
      on a line. Without REQUESTs, reads one request per line from standard
      input; "receive [SECONDS]" prints the next event, "#" starts a comment.
      --config JSON|@FILE  the runtime config, inline or from a file, such as
                           {"scenes": ["path/libshop.so"], "plugins": [...]}
      Requests may use every op on any file (docs/security.md), unless the
      config has its own "allow": {"allow": {}} grants none.

    New scene pack
      new pack NAME  writes a Swift package that builds into the scene pack
                     libNAME.so, with one scene and its tests (docs/scenes.md)
      --dir DIR      where (default ./NAME): a new or empty folder
      --yaia PATH    the Yaia package it depends on
                     (default \(NewCommand.builtFrom))

    Exit status
      0  success
      1  a response was an error envelope; new: a file could not be written
      2  bad usage: an unknown command or option, a bad NAME, DIR not empty,
         no Yaia package at PATH, a config the runtime refuses

    example: yaia-cli '{"op":"bind","service":"m","library":"libm.so.6","ops":{"pow":"double(double,double)"}}' \\
                      '{"op":"perform","effect":{"service":"m","op":"pow","args":[2,10]}}'

    """

var arguments = Array(CommandLine.arguments.dropFirst())
var config = "{}"
switch arguments.first {
case "help", "--help", "-h":
    FileHandleOut.stdout(usage)
    exit(0)
case "--version", "version":
    let library = CYaia.yaia_version().map { String(cString: $0) } ?? "?"
    FileHandleOut.stdout("yaia-cli \(library) (C ABI \(CYaia.yaia_abi_version()))\n")
    exit(0)
case "new":
    exit(NewCommand.run(Array(arguments.dropFirst())))
default:
    break
}
if arguments.first == "--config" {
    guard arguments.count >= 2 else { fail("--config needs JSON or @FILE") }
    config = arguments[1]
    if config.hasPrefix("@") {
        guard let text = readAll(String(config.dropFirst())) else { fail("cannot read \(config.dropFirst())") }
        config = text
    }
    arguments.removeFirst(2)
}
// A request is JSON (or "receive"): a word or an option is a mistyped command.
for argument in arguments where argument.hasPrefix("-") && argument.dropFirst().first.map({ $0.isLetter || $0 == "-" }) == true {
    fail("unknown option \(argument) (yaia-cli --help lists them)")
}
if let first = arguments.first, let c = first.first, c.isLetter, first.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }),
   !["receive", "null", "true", "false"].contains(first) {
    fail("unknown command \"\(first)\" (yaia-cli --help lists them)")
}

// The person at the terminal is the host: requests may use every op on any
// file, unless the config says otherwise (a later "allow" key wins).
let given = config.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
if given.hasPrefix("{") {
    let rest = given.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    config = #"{"allow":{"ops":"all","files":["/"]}"# + (rest.hasPrefix("}") ? "" : ",") + rest
}
var errorText: UnsafeMutablePointer<CChar>?
guard let rt = yaia_runtime_new(config, &errorText) else {
    FileHandleOut.stderr((errorText.map { String(cString: $0) } ?? "cannot create the runtime") + "\n")
    yaia_free(errorText)
    exit(2)
}

/// Runs requests against one runtime; remembers whether any failed.
struct Session {
    let rt: OpaquePointer
    var failed = false

    /// Prints a response and frees it.
    mutating func emit(_ response: UnsafeMutablePointer<CChar>?) {
        guard let response else { return }
        let text = String(cString: response)
        yaia_free(response)
        if text.hasPrefix("{\"error\":") { failed = true }
        FileHandleOut.stdout(text + "\n")
    }

    mutating func run(_ line: String) {
        let trimmed = line.trimmingSpaces()
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return }
        if trimmed == "receive" || trimmed.hasPrefix("receive ") {
            let seconds = Double(trimmed.dropFirst("receive".count).trimmingSpaces()) ?? 0
            emit(yaia_receive(rt, seconds))
            return
        }
        emit(yaia_execute(rt, trimmed))
    }
}

var session = Session(rt: rt)
if arguments.isEmpty {
    while let line = readLine(strippingNewline: true) { session.run(line) }
} else {
    for request in arguments { session.run(request) }
}
yaia_runtime_free(rt)
exit(session.failed ? 1 : 0)

extension StringProtocol {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
