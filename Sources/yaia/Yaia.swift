// yaia -- the runtime from the command line, a host of the same C ABI as any
// other (docs/cli.md): run a scene, run scenario files, replay a journal,
// check scene documents, draw their graph, start a pack or a scene, run
// requests.
import CYaia
import Glibc

@main
struct Yaia: Command {
    static let configuration = CommandConfiguration(
        commandName: "yaia",
        abstract: "Yaia's runtime from the command line (docs/cli.md).",
        discussion: """
            Exit status: 0 success; 1 the work failed (a failing scenario, a document with problems, an error \
            response); 2 bad usage (an unknown command or option, a file that cannot be read, a config the \
            runtime refuses).
            """,
        version: versionText,
        subcommands: [RunCommand.self, TestCommand.self, ReplayCommand.self, CheckCommand.self, GraphCommand.self,
                      NewCommand.self, ExecCommand.self],
        runs: false
    )

    init(_ given: Arguments) {}
    func run() {}

    static var versionText: String {
        let library = yaia_version().map { String(cString: $0) } ?? "?"
        return "yaia \(library) (C ABI \(yaia_abi_version()))"
    }

    /// Reads the command line and runs its command: bad usage exits 2, a
    /// command's failure is printed as "yaia: MESSAGE" (none for a failure
    /// the command has already reported) and exits with its status.
    static func main() {
        do {
            switch try ArgumentReader.read(Array(CommandLine.arguments.dropFirst()), root: Yaia.self) {
            case .help(let text), .version(let text): Out.stdout(text.hasSuffix("\n") ? text : text + "\n")
            case .run(let command): try command.run()
            }
        } catch let error as CommandError {
            if !error.message.isEmpty { Out.stderr("yaia: \(error.message)\n") }
            Glibc.exit(error.status)
        } catch {
            Out.stderr("yaia: \(error)\n")
            Glibc.exit(1)
        }
    }
}
