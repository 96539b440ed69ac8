// `yaia exec`: requests for yaia_execute, as arguments or one a line on
// standard input.
import Glibc

struct ExecCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run JSON requests (yaia.h, docs/abi.md) and print each response on a line.",
        discussion: """
            Without REQUESTs, reads one a line from standard input, where also "receive [SECONDS]" prints \
            the next event (nothing on time-out), "help" lists these commands, "quit" (or the end of input) \
            ends, and "#" starts a comment. Exit status 1 when any response was an error envelope.
            example: yaia exec '{"op":"bind","service":"m","library":"libm.so.6","ops":{"pow":"double(double,double)"}}' \
            '{"op":"perform","effect":{"service":"m","op":"pow","args":[2,10]}}'
            """,
        options: HostOptions.options,
        arguments: [ArgumentSpec(name: "requests", help: "JSON requests, run in order.", many: true, optional: true)]
    )

    var host: HostOptions
    var requests: [String]

    init(_ given: Arguments) {
        host = HostOptions(given)
        requests = given.arguments("requests")
    }

    static let lineHelp = """
        One line, one of:
          {"op": ...}        a request (yaia.h, docs/abi.md); its response is printed
          receive [SECONDS]  the next event, waiting at most SECONDS (default 0)
          help               this list
          quit, exit         the end (so is the end of input)
          # ...              a comment

        """

    func run() throws {
        let runtime = try host.host()
        var failed = false
        /// Runs one line; false when it asks to end.
        func run(_ line: String) -> Bool {
            let trimmed = line.trimmingSpaces()
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return true }
            switch trimmed {
            case "quit", "exit": return false
            case "help":
                Out.stdout(Self.lineHelp)
                return true
            default: break
            }
            if trimmed == "receive" || trimmed.hasPrefix("receive ") {
                let seconds = Double(trimmed.dropFirst("receive".count).trimmingSpaces()) ?? 0
                if let event = runtime.receive(seconds) { Out.stdout(event + "\n") }
                return true
            }
            let response = runtime.execute(text: trimmed)
            if response.hasPrefix("{\"error\":") { failed = true }
            Out.stdout(response + "\n")
            return true
        }
        if requests.isEmpty {
            if isatty(0) != 0 { Out.stderr("yaia exec: one request a line; help lists the commands, quit ends\n") }
            while let line = readLine(strippingNewline: true), run(line) {}
        } else {
            for request in requests where !run(request) { break }
        }
        if failed { throw CommandError.failed }
    }
}
