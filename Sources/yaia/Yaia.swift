// yaia -- the runtime from the command line, a host of the same C ABI as any
// other (docs/cli.md): run a scene, run scenario files, replay a journal,
// check scene documents, draw their graph, start a pack or a scene, run
// requests.
import ArgumentParser
import CYaia
import Glibc

@main
struct Yaia: ParsableCommand {
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
                      NewCommand.self, ExecCommand.self]
    )

    static var versionText: String {
        let library = yaia_version().map { String(cString: $0) } ?? "?"
        return "yaia \(library) (C ABI \(yaia_abi_version()))"
    }

    /// ArgumentParser's main, with bad usage exiting 2 (its own default is 64)
    /// and a command's failure printed as "yaia: MESSAGE".
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as CommandError {
            Out.stderr("yaia: \(error.message)\n")
            Glibc.exit(error.status)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                Out.stdout(fullMessage(for: error) + "\n")
                Glibc.exit(0)
            }
            if code == .validationFailure {
                Out.stderr(fullMessage(for: error) + "\n")
                Glibc.exit(2)
            }
            exit(withError: error)
        }
    }
}
