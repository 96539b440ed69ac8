// `yaia replay JOURNAL`: the journal re-run by the library's `replay` op;
// `--scenario OUT` turns it into scenario files (`scenario_from_journal`).
import Glibc
import YaiaCore
import YaiaKit

struct ReplayCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a journal and say whether it ran as recorded; or turn it into scenario files.",
        discussion: """
            The journal's scene types must be loaded (--scenes). The replay's answer is printed \
            (docs/journal.md); exit status 1 when the replay diverged or failed. With --scenario OUT, the \
            journal becomes one scenario per scene it opened instead: OUT is a file (*.json) for one scenario, \
            otherwise a folder they are written into (SCENE.scenario.json).
            """,
        options: HostOptions.options + [
            OptionSpec("to", help: "Replay up to this input (its seq)."),
            OptionSpec("scenario", value: "out", help: "Write the journal as scenario files here instead."),
        ],
        arguments: [ArgumentSpec(name: "journal", help: "A journal file (docs/journal.md).")]
    )

    var host: HostOptions
    var to: Int?
    var scenario: String?
    var journal: String

    init(_ given: Arguments) throws(CommandError) {
        host = HostOptions(given)
        to = try given.int("to")
        scenario = given.option("scenario")
        journal = given.argument("journal")
    }

    func run() throws {
        guard kind(of: journal) == .file, let path = realPath(journal) else { throw CommandError.usage("no journal at \(journal)") }
        if let scenario { return try writeScenarios(path, to: scenario) }
        let runtime = try host.host(ops: ["replay"], files: [folder(of: path)])
        var request: JSONObject = ["op": "replay", "journal": .string(path)]
        if let to { request["to"] = .int(Int64(to)) }
        let answer = runtime.execute(.object(request))
        Out.stdout(answer.text + "\n")
        guard answer["ok"] == true else { throw CommandError.failure("replay: " + errorLine(answer)) }
        if answer["identical"] == true {
            Out.stderr("replayed \(answer["inputs"]?.text ?? "?") inputs: identical\n")
        } else {
            let divergence = answer["divergence"] ?? .null
            throw CommandError.failure("the replay diverged at seq \(divergence["seq"]?.text ?? "?") (\(divergence["kind"]?.stringValue ?? "?")"
                                       + " on scene \(divergence["scene"]?.text ?? "?"))")
        }
    }

    func writeScenarios(_ path: String, to out: String) throws {
        let runtime = try host.host(ops: ["scenario_from_journal"], files: [folder(of: path)])
        let answer = runtime.execute(["op": "scenario_from_journal", "path": .string(path)])
        guard answer["ok"] == true, let scenarios = answer["scenarios"]?.arrayValue else {
            throw CommandError.failure("scenario_from_journal: " + errorLine(answer))
        }
        guard !scenarios.isEmpty else { throw CommandError.failure("\(journal) opened no scene: no scenario to write") }
        var written: [String] = []
        if out.hasSuffix(".json") {
            guard scenarios.count == 1, let only = scenarios.first else {
                throw CommandError.usage("\(journal) makes \(scenarios.count) scenarios: give --scenario a folder")
            }
            try writeFile(out, only.pretty() + "\n")
            written = [out]
        } else {
            try makeDirectories(out)
            var used: Set<String> = []
            for scenario in scenarios {
                let scene = (scenario["scene"]?.stringValue ?? scenario["flow"]?["scene"]?.stringValue ?? "scenario")
                    .map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" }
                var name = String(scene)
                var n = 2
                while used.contains(name) { name = "\(String(scene))-\(n)"; n += 1 }
                used.insert(name)
                let file = (out.hasSuffix("/") ? out : out + "/") + name + ".scenario.json"
                try writeFile(file, scenario.pretty() + "\n")
                written.append(file)
            }
        }
        Out.stdout(written.map { "wrote \($0)\n" }.joined() + "run them: yaia test " + written.map(shellQuoted).joined(separator: " ") + "\n")
    }
}
