// `yaia test PATH...`: scenario files run by the library's `scenario` op;
// `yaia test --simulate N --seed S SCENE`: random runs by its `simulate` op.
import Glibc
import YaiaCore
import YaiaKit

struct TestCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run scenario files, or simulate a scene with random actions.",
        discussion: """
            PATH is a scenario file (*.scenario.json) or a folder searched for them. Each file prints a \
            line, PASS or FAIL, and a failure its readable difference; the last line is "N passed, N failed". \
            With --simulate N, the one PATH is a scene (a pack, a document, or a scene type's name with \
            --scenes): N runs of random valid actions and effect outcomes, the scene's invariants checked \
            after every step; a violation is shrunk to a short scenario, printed or written to --out. \
            Exit status: 0 all passed, 1 a failure, 2 bad usage.
            """,
        options: HostOptions.options + [
            OptionSpec("simulate", value: "n", help: "Simulate the scene for N random runs instead."),
            OptionSpec("seed", help: "The simulation's random seed (the same seed, the same runs). (default: 0)"),
            OptionSpec("steps", help: "Steps a simulated run takes at most."),
            OptionSpec("out", value: "file", help: "Where a simulation writes the failing scenario it found."),
            OptionSpec("actions", value: "json", help: "For a Swift or pack scene, which declares none: its actions' payload "
                       + "schemas, {\"NAME\": SCHEMA|null, ...} (JSON or @FILE)."),
        ],
        arguments: [ArgumentSpec(name: "paths", help: "Scenario files or folders; with --simulate, one scene.", many: true)]
    )

    var host: HostOptions
    var simulate: Int?
    var seed: Int
    var steps: Int?
    var out: String?
    var actions: String?
    var paths: [String]

    init(_ given: Arguments) throws(CommandError) {
        host = HostOptions(given)
        simulate = try given.int("simulate")
        seed = try given.int("seed") ?? 0
        steps = try given.int("steps")
        out = given.option("out")
        actions = given.option("actions")
        paths = given.arguments("paths")
        if simulate == nil && (out != nil || steps != nil || actions != nil) {
            throw usageError("--steps, --out and --actions go with --simulate N", given.path)
        }
        if let simulate {
            guard simulate > 0 else { throw usageError("--simulate takes a number of runs above 0", given.path) }
            guard paths.count == 1 else { throw usageError("--simulate takes one scene, not \(paths.count)", given.path) }
        }
    }

    func run() throws {
        if let runs = simulate { return try simulate(runs: runs) }
        var files: [String] = []
        for path in paths {
            switch kind(of: path) {
            case .missing: throw CommandError.usage("no file or folder at \(path)")
            case .directory: files += YaiaCLI.files(in: path, endingWith: ".scenario.json")
            default: files.append(path)
            }
        }
        guard !files.isEmpty else { throw CommandError.usage("no scenario files (*.scenario.json) in " + paths.joined(separator: ", ")) }
        let absolute = files.map { realPath($0) ?? $0 }
        let runtime = try host.host(files: Array(Set(absolute.map(folder(of:)))).sorted())
        var passed = 0, failed = 0
        for (shown, path) in zip(files, absolute) {
            let answer = runtime.execute(["op": "scenario", "path": .string(path)])
            let name = answer["name"]?.stringValue.map { " (\($0))" } ?? ""
            if answer["ok"] == true && answer["passed"] == true {
                passed += 1
                let steps = answer["steps"]?.text ?? "?"
                Out.stdout("PASS \(shown)\(name), \(steps) step\(steps == "1" ? "" : "s")\n")
                continue
            }
            failed += 1
            Out.stdout("FAIL \(shown)\(name)\n")
            if answer["ok"] == true {
                let failure = answer["failure"] ?? .null
                Out.stdout(indented(failure["text"]?.stringValue ?? failure.text))
            } else {
                let problems = answer["error"]?["problems"]?.arrayValue ?? answer["problems"]?.arrayValue ?? []
                guard !problems.isEmpty else {
                    Out.stdout(indented(errorLine(answer)))
                    continue
                }
                Out.stdout("  \(answer["error"]?["code"]?.stringValue ?? "bad_scenario"): \(problems.count) problem\(problems.count == 1 ? "" : "s")\n")
                for problem in problems {
                    let at = problem["at"]?.stringValue ?? ""
                    Out.stdout("    \(at.isEmpty ? "/" : at): \(problem["message"]?.stringValue ?? problem.text)\n")
                }
            }
        }
        Out.stdout("\(passed) passed, \(failed) failed\n")
        if failed > 0 { throw CommandError.failed }
    }

    func simulate(runs: Int) throws {
        let target = Target(paths[0])
        let runtime = try host.host(scenes: target.scenes)
        let scene = try target.scene(in: runtime, chosen: nil)
        var request: JSONObject = ["op": "simulate", "scene": .string(scene), "runs": .int(Int64(runs)), "seed": .int(Int64(seed))]
        if let steps { request["steps"] = .int(Int64(steps)) }
        if let actions {
            let text = actions.hasPrefix("@") ? readAll(String(actions.dropFirst())) : actions
            guard let json = text.flatMap(parseJSON) else { throw CommandError.usage("--actions is not JSON (or @FILE of JSON)") }
            request["actions"] = json
        }
        let answer = runtime.execute(.object(request))
        guard answer["ok"] == true else { throw CommandError.failure("simulate \(scene): " + errorLine(answer)) }
        if answer["passed"] == true {
            Out.stdout("PASS simulate \(scene): \(answer["runs"]?.text ?? String(runs)) runs, seed \(seed)\n1 passed, 0 failed\n")
            return
        }
        var text = "FAIL simulate \(scene): run \(answer["run"]?.text ?? "?"), seed \(answer["seed"]?.text ?? String(seed))"
        if let invariant = answer["invariant"]?.stringValue { text += ", invariant \(invariant)" }
        text += "\n" + indented(answer["message"]?.stringValue ?? "")
        guard var scenario = answer["scenario"]?.objectValue else {
            Out.stdout(text + "0 passed, 1 failed\n")
            throw CommandError.failed
        }
        // The scenario names where its scene comes from, relative to its own file.
        if scenario["scenes"] == nil {
            let base = realPath(out.map(folder(of:)) ?? ".") ?? "."
            let paths = target.scenes + host.scenes
            scenario["scenes"] = .array(paths.map { .string(relativePath(realPath($0) ?? $0, from: base)) })
        }
        let file = JSON.object(scenario).pretty() + "\n"
        if let out {
            try writeFile(out, file)
            let steps = scenario["steps"]?.arrayValue?.count ?? 0
            text += "  the shrunk scenario (\(steps) step\(steps == 1 ? "" : "s")) is in \(out): yaia test \(shellQuoted(out))\n"
        } else {
            text += "  the shrunk scenario:\n" + file
        }
        Out.stdout(text + "0 passed, 1 failed\n")
        throw CommandError.failed
    }
}

/// Each line of `text` indented.
func indented(_ text: String, by prefix: String = "  ") -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }.joined(separator: "\n") + "\n"
}

/// `path` relative to the folder `base` (both absolute).
func relativePath(_ path: String, from base: String) -> String {
    let target = path.split(separator: "/")
    let from = base.split(separator: "/")
    var common = 0
    while common < min(target.count, from.count) && target[common] == from[common] { common += 1 }
    let up = Array(repeating: "..", count: from.count - common)
    let parts = up + target[common...].map(String.init)
    return parts.isEmpty ? "." : parts.joined(separator: "/")
}
