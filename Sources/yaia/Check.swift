// `yaia check DOC...`: every problem of scene documents, each at its JSON
// Pointer, as the runtime finds them when it registers each document.
import YaiaCore
import YaiaKit

struct CheckCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check scene documents and print every problem with its JSON Pointer.",
        discussion: """
            DOC is a scene document or a folder (its *.json files, subfolders included, scenario files \
            left out). The documents are checked together: a route may name a scene of another of them, \
            or of the packs loaded with --scenes. Exit status 1 when any document has a problem.
            """,
        options: HostOptions.options,
        arguments: [ArgumentSpec(name: "documents", help: "Scene documents, or folders of them.", many: true)]
    )

    var host: HostOptions
    var documents: [String]

    init(_ given: Arguments) {
        host = HostOptions(given)
        documents = given.arguments("documents")
    }

    func run() throws {
        var paths: [String] = []
        for path in documents {
            guard kind(of: path) != .missing else { throw CommandError.usage("no file or folder at \(path)") }
            paths += files(in: path, endingWith: ".json").filter { !$0.hasSuffix(".scenario.json") }
        }
        guard !paths.isEmpty else { throw CommandError.usage("no scene documents (*.json) in " + documents.joined(separator: ", ")) }
        var parsed: [(path: String, json: JSON?, error: String?)] = []
        for path in paths {
            guard let text = readAll(path) else {
                parsed.append((path, nil, "unreadable: cannot read the file"))
                continue
            }
            do { parsed.append((path, try JSONParser.parse(text), nil)) } catch { parsed.append((path, nil, "invalid_json: \(error.message)")) }
        }
        let names = Set(parsed.compactMap { $0.json?["scene"]?.stringValue })
        let runtime = try host.host(ops: ["register"])
        var failing = 0
        for (path, json, error) in parsed {
            var problems: [String] = []
            if let error {
                problems = [error]
            } else if let json {
                let answer = runtime.execute(["op": "register", "document": json])
                if answer["ok"] != true { problems = Self.problems(answer, document: json, names: names) }
            }
            // Warnings do not fail a document: it means what the runtime reads, maybe not what its author meant.
            let warnings = json.map(SceneDocument.warnings) ?? []
            let warned = warnings.isEmpty ? "" : ", \(counted(warnings.count, "warning"))"
            if problems.isEmpty {
                Out.stdout("\(path): ok (\(json?["scene"]?.stringValue ?? "?"))\(warned)\n")
            } else {
                failing += 1
                Out.stdout("\(path): \(counted(problems.count, "problem"))\(warned)\n")
                for problem in problems { Out.stdout("  \(problem)\n") }
            }
            for w in warnings { Out.stdout("  warning: \(w.at): \(w.code): \(w.message)\n") }
        }
        Out.stdout("\(parsed.count) document\(parsed.count == 1 ? "" : "s") checked, \(failing) with problems\n")
        if failing > 0 { throw CommandError.failed }
    }

    /// "POINTER: CODE: MESSAGE" for each problem of a refused registration;
    /// a route to another of the documents checked is none.
    static func problems(_ answer: JSON, document: JSON, names: Set<String>) -> [String] {
        let error = answer["error"] ?? .null
        guard error["code"] == "bad_document", let list = error["problems"]?.arrayValue else {
            var at = error["at"]?.stringValue ?? ""
            if at.hasPrefix("/document") { at.removeFirst("/document".count) }
            return ["\(at.isEmpty ? "/" : at): \(error["code"]?.stringValue ?? "error"): \(error["message"]?.stringValue ?? answer.text)"]
        }
        return list.compactMap { problem in
            let at = problem["at"]?.stringValue ?? ""
            if problem["code"] == "unknown_scene", let name = document.at(pointer: at)?.stringValue, names.contains(name) { return nil }
            return "\(at.isEmpty ? "/" : at): \(problem["code"]?.stringValue ?? "?"): \(problem["message"]?.stringValue ?? "")"
        }
    }
}
