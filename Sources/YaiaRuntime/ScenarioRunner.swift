// The `scenario` request: a scenario file (docs/scenarios.md) run in a
// scratch runtime with no services and a manual clock, step by step, with
// the exhaustive rules of the testing kit.
import Glibc
import YaiaCore
import YaiaKit

extension Runtime {
    /// `{"op": "scenario", "scenario": {...}, "base": DIR}` or `{"op": "scenario", "path": FILE}`.
    func scenarioRequest(_ o: JSONObject) throws(YaiaError) -> JSON {
        let json: JSON
        var base = "."
        var fileName: String?
        switch (o["scenario"], o["path"]) {
        case (let s?, nil):
            json = s
        case (nil, .string(let path)?):
            let file = try grants.openBeneath(path, at: "/path", flags: O_RDONLY, code: .badRequest, missing: .badRequest, type: S_IFREG)
            json = try readScenarioFile(file)
            base = parentFolder(of: file.path)
            fileName = String(file.path.split(separator: "/").last ?? "")
        case (nil, let p?):
            throw YaiaError(.badRequest, "\"path\" names a scenario file: a string, not \(p.kindName)", at: "/path")
        default:
            throw YaiaError(.badRequest, "scenario takes {\"scenario\": {...}} or {\"path\": FILE}", at: "/scenario")
        }
        if let b = o["base"] {
            guard case .string(let folder) = b, !folder.isEmpty else {
                throw YaiaError(.badRequest, "\"base\" is the folder a scenario's paths are relative to", at: "/base")
            }
            base = folder
        }
        let scenario: Scenario
        do throws(YaiaError) {
            scenario = try Scenario(json)
        } catch {
            throw o["path"] == nil ? error.nested(under: "/scenario") : error
        }
        let name = scenario.name ?? fileName.map(Runtime.scenarioName(file:)) ?? "scenario"
        do throws(YaiaError) {
            return try run(scenario, name: name, base: base)
        } catch {
            // A scene source's fault lies in the request's scenario.
            throw o["path"] == nil && error.at?.hasPrefix("/scenes") == true ? error.nested(under: "/scenario") : error
        }
    }

    /// `login.scenario.json` -> `login`.
    static func scenarioName(file: String) -> String {
        for suffix in [".scenario.json", ".json"] where file.hasSuffix(suffix) && file.count > suffix.count {
            return String(file.dropLast(suffix.count))
        }
        return file
    }

    /// A scenario file as JSON, within the request limits; the file is closed.
    func readScenarioFile(_ file: OpenedFile) throws(YaiaError) -> JSON {
        let (fd, path) = (file.fd, file.path)
        defer { Glibc.close(fd) }
        let bytes = try readAll(fd, path: path, limit: limits.requestBytes, code: .badRequest, at: "/path") { count in
            YaiaError.limit("request_bytes", limits.requestBytes, "a JSON text of \(counted(count, "byte"))")
        }
        do throws(YaiaError) {
            return try bytes.withUnsafeBufferPointer { (b) throws(YaiaError) in try JSONParser.parse(b, maxDepth: limits.depth + Limits.wrapping) }
        } catch {
            var e = YaiaError(.badScenario, "\(path) is not JSON: \(error.message)", at: "")
            e.problems = [["code": "not_json", "message": .string(error.message), "at": ""]]
            throw e
        }
    }

    /// Runs `scenario`; `base` is the folder its `scenes` paths are relative to.
    public func run(_ scenario: Scenario, name: String, base: String) throws(YaiaError) -> JSON {
        var catalog = self.catalog
        if !scenario.scenes.isEmpty {
            try loadScenarioScenes(scenario.scenes, base: base, into: &catalog)
        }
        if scenario.steps.contains(where: { if case .perform = $0.input { return true } else { return false } }) {
            try grants.check(Op.perform)
        }
        let scratch = Runtime(catalog: catalog, workers: 1, limits: limits, clock: .manual(ManualClock(now: scenario.now)), env: scenario.env)
        defer { scratch.shutDown() }
        var run = ScenarioRun(scenario: scenario, scratch: scratch, caller: self)
        let failure = run.run()
        var answer: JSONObject = ["ok": true, "name": .string(name), "passed": .bool(failure == nil), "steps": .int(Int64(scenario.steps.count))]
        if let failure { answer["failure"] = failure.json }
        return .object(answer)
    }

    /// Adds the scenario's scene sources to `catalog`, paths from `base`.
    /// A source the calling runtime has loaded already (the same file) is
    /// skipped. Any other is confined to the granted folders, and needs the
    /// grant of the op that would add it: a pack runs code (`load_plugin`),
    /// a document adds a scene type (`register`).
    func loadScenarioScenes(_ paths: [String], base: String, into catalog: inout Catalog) throws(YaiaError) {
        let loaded = Set(catalog.packs.compactMap { canonicalPath($0.path) }
                         + catalog.documents.compactMap { name -> String? in
                             if case .file(let f)? = catalog[name]?.origin { return canonicalPath(f) }
                             return nil
                         })
        func isLoaded(_ path: String) -> Bool { canonicalPath(path).map(loaded.contains) ?? false }
        var wanted: [JSON] = []
        /// The index in `paths` of each entry of `wanted`.
        var from: [Int] = []
        for (i, path) in paths.enumerated() {
            let at = JSONPointer.appending("/scenes", i)
            var full = path.hasPrefix("/") ? path : (base.hasSuffix("/") ? base : base + "/") + path
            while full.count > 1 && full.hasSuffix("/") { full.removeLast() }
            if isLoaded(full) { continue }
            let files: [String]
            let isPack: Bool
            switch SceneSource(full) {
            case .folder(let folder):
                let real = canonicalPath(folder) ?? folder
                guard grants.directories.contains(where: { real == $0 || beneath(real, $0) }) else {
                    throw YaiaError(.notPermitted, "\(path): the folder lies outside the directories the config grants requests", at: at)
                }
                (files, isPack) = (try documentFiles(in: real, files: .granted(grants, at: at)).filter { !isLoaded($0) }, false)
            case .document(let file): (files, isPack) = ([try grants.confine(file, at: at)], false)
            case .pack(let file): (files, isPack) = ([try grants.confine(file, at: at)], true)
            }
            guard !files.isEmpty else { continue }
            let op = isPack ? Op.loadPlugin.name : Op.register.name
            guard grants.ops.contains(op) else {
                throw YaiaError(.notPermitted, "the scenario loads \(path), which needs the \"\(op)\" grant on this runtime's requests: {\"allow\": {\"ops\": [\"\(op)\"]}}", at: at)
            }
            for file in files {
                // A folder's files too: a link in it must not lead out of the granted folders.
                wanted.append(.string(try grants.confine(file, at: at)))
                from.append(i)
            }
        }
        guard !wanted.isEmpty else { return }
        do throws(YaiaError) {
            try catalog.load(.array(wanted), at: "/scenes", depth: limits.depth, steps: limits.logicSteps, files: .granted(grants, at: "/scenes"))
        } catch {
            // Point at the scenario's own entry, not at the list loaded.
            var moved = error
            if let at = error.at, at.hasPrefix("/scenes/"),
               let index = Int(at.dropFirst("/scenes/".count).prefix { $0 != "/" }), index < from.count {
                moved.at = JSONPointer.appending("/scenes", from[index])
            }
            throw moved
        }
    }
}

func parentFolder(of path: String) -> String {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
    return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
}
