// `yaia graph PACK|DOC|FOLDER`: scenes, their actions, the effects they emit
// and the routes between them, as Graphviz DOT (or an image drawn by `dot`).
// Read from each scene's schema; a document read from a file also says
// which action emits which effect or route.
import Glibc
import YaiaCore
import YaiaKit

struct GraphCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Draw scenes: their actions, effects and routes, and the navigation between them.",
        discussion: """
            TARGET is a scene pack, a scene document, a folder of them, or a scene type's name (with \
            --scenes). The graph is Graphviz DOT on standard output; --format svg or png draws it with \
            Graphviz's `dot` (apt-get install graphviz) into --output. Swift and pack scenes declare no \
            interface: they are drawn as a node that says so, with what their documents' routes say of them. \
            A scene's child slots, of any scene, are drawn inside it.
            """,
        options: HostOptions.options + [
            OptionSpec("format", help: "dot (the default: DOT text), svg or png (drawn by Graphviz's dot)."),
            OptionSpec("output", value: "file", help: "The file to write (default: standard output; png needs a file)."),
        ],
        arguments: [ArgumentSpec(name: "target", help: "A scene pack, a scene document, a folder of them, or a scene type's name.")]
    )

    enum Format: String, CaseIterable { case dot, svg, png }

    var host: HostOptions
    var format: Format
    var output: String?
    var target: String

    init(_ given: Arguments) throws(CommandError) {
        host = HostOptions(given)
        format = try given.choice("format", default: .dot)
        output = given.option("output")
        target = given.argument("target")
    }

    func run() throws {
        if format == .png && output == nil { throw CommandError.usage("--format png needs --output FILE") }
        let target = Target(self.target)
        let runtime = try host.host(scenes: target.scenes)
        let names = try target.sceneTypes(in: runtime)
        let files = documentFiles(runtime)
        let scenes = names.map { SceneGraph(runtime: runtime, scene: $0, file: files[$0]) }
        let dot = Self.dot(scenes)
        switch format {
        case .dot:
            if let output { try writeFile(output, dot) } else { Out.stdout(dot) }
        case .svg, .png:
            try draw(dot, format: format.rawValue, output: output)
        }
    }

    /// The file each document scene was read from.
    func documentFiles(_ runtime: Host) -> [String: String] {
        var files: [String: String] = [:]
        for entry in runtime.execute(["op": "scenes"])["documents"]?.arrayValue ?? [] {
            if let scene = entry["scene"]?.stringValue, let file = entry["file"]?.stringValue { files[scene] = file }
        }
        return files
    }

    /// Runs `dot -TFORMAT [-o OUTPUT]` on the text.
    func draw(_ dot: String, format: String, output: String?) throws(CommandError) {
        guard let program = findProgram("dot") else {
            throw .failure("--format \(format) needs Graphviz's `dot`, which is not on PATH (apt-get install graphviz); "
                           + "without --format, yaia graph prints the DOT text")
        }
        var arguments = [program, "-T" + format]
        if let output { arguments += ["-o", output] }
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw .failure("cannot run dot: \(errnoText())") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[0], 0)
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, &argv, environ)
        close(pipe[0])
        guard spawned == 0 else {
            close(pipe[1])
            throw .failure("cannot run \(program): \(String(cString: strerror(spawned)))")
        }
        // dot reads all of its input before it writes: no deadlock on a large graph.
        signal(SIGPIPE, SIG_IGN)
        Out.write(pipe[1], dot)
        close(pipe[1])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw .failure("dot failed (status \(status)) drawing the graph") }
    }
}

func findProgram(_ name: String) -> String? {
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":") where access("\(dir)/\(name)", X_OK) == 0 { return "\(dir)/\(name)" }
    return nil
}

/// What a drawing shows of one scene type.
struct SceneGraph {
    struct Effect: Equatable { var service: String, op: String, then: String?, onError: String?, by: [String] }
    struct Route: Equatable { var kind: String, target: String?, onResult: String?, by: [String] }
    /// A child slot, from the schema's `children`: any scene, Swift, pack or document, may have them.
    struct Slot: Equatable { var name: String, scene: String, kind: String, intercept: Bool, outputs: [String] }

    let name: String
    var declared = false
    var actions: [(name: String, payload: String?)] = []
    var effects: [Effect] = []
    var routes: [Route] = []
    var slots: [Slot] = []

    init(runtime: Host, scene: String, file: String?) {
        name = scene
        let list = ActionList(runtime: runtime, scene: scene)
        declared = list.declared
        actions = list.actions
        let answer = runtime.execute(["op": "schema", "scene": .string(scene)])
        for (slot, d) in answer["children"]?.objectValue ?? [:] {
            slots.append(Slot(name: slot, scene: d["scene"]?.stringValue ?? "?", kind: d["kind"]?.stringValue ?? "?",
                              intercept: d["intercept"] == true,
                              outputs: (d["outputs"]?.objectValue ?? [:]).map { "\($0.key) \u{2192} \($0.value.stringValue ?? "?")" }))
        }
        guard declared else { return }
        if let file, let text = readAll(file), let document = parseJSON(text), document["scene"]?.stringValue == scene {
            read(document)
            return
        }
        let schema = answer["schema"] ?? .null
        for effect in schema.at(pointer: "/$defs/effect/oneOf")?.arrayValue ?? [] {
            add(Effect(service: effect.at(pointer: "/properties/service/const")?.stringValue ?? "?",
                       op: effect.at(pointer: "/properties/op/const")?.stringValue ?? "?",
                       then: effect.at(pointer: "/properties/then/const")?.stringValue,
                       onError: effect.at(pointer: "/properties/catch/const")?.stringValue, by: []))
        }
        for route in schema.at(pointer: "/$defs/route/oneOf")?.arrayValue ?? [] {
            guard let kind = route["required"]?.arrayValue?.first?.stringValue else { continue }
            add(Route(kind: kind, target: route.at(pointer: "/properties/\(kind)/const")?.stringValue,
                      onResult: route.at(pointer: "/properties/onResult/const")?.stringValue, by: []))
        }
    }

    /// Effects and routes action by action, from the document itself.
    private mutating func read(_ document: JSON) {
        for (action, body) in document["actions"]?.objectValue ?? [:] {
            let branches: [JSON]
            switch body {
            case .array(let list): branches = list.elements
            case .object(let o): branches = o["branches"]?.arrayValue?.elements ?? [body]
            default: branches = []
            }
            for branch in branches {
                for effect in branch["effects"]?.arrayValue ?? [] {
                    add(Effect(service: effect["service"]?.stringValue ?? "?", op: effect["op"]?.stringValue ?? "?",
                               then: effect["then"]?.stringValue, onError: effect["catch"]?.stringValue, by: [action]))
                }
                if let route = branch["route"]?.objectValue {
                    for kind in ["push", "present", "replace", "popTo", "pop", "dismiss", "popToRoot"] where route[kind] != nil {
                        add(Route(kind: kind, target: route[kind]?.stringValue, onResult: route["onResult"]?.stringValue, by: [action]))
                    }
                }
            }
        }
    }

    private mutating func add(_ effect: Effect) {
        if let i = effects.firstIndex(where: { $0.service == effect.service && $0.op == effect.op && $0.then == effect.then && $0.onError == effect.onError }) {
            effects[i].by += effect.by.filter { !effects[i].by.contains($0) }
        } else {
            effects.append(effect)
        }
    }

    private mutating func add(_ route: Route) {
        if let i = routes.firstIndex(where: { $0.kind == route.kind && $0.target == route.target && $0.onResult == route.onResult }) {
            routes[i].by += route.by.filter { !routes[i].by.contains($0) }
        } else {
            routes.append(route)
        }
    }
}

extension GraphCommand {
    /// The DOT text: a node per scene (its actions listed), a node per
    /// effect (service.op), edges for emitted effects and for routes.
    static func dot(_ scenes: [SceneGraph]) -> String {
        var lines = [
            "digraph yaia {",
            "  graph [rankdir=LR, fontname=\"Helvetica\", nodesep=0.4, ranksep=0.8];",
            "  node [fontname=\"Helvetica\", fontsize=11];",
            "  edge [fontname=\"Helvetica\", fontsize=10];",
        ]
        let drawn = Set(scenes.map(\.name))
        var elsewhere: [String] = []
        for scene in scenes {
            var rows = ["<tr><td bgcolor=\"#dbe8f7\"><b>\(html(scene.name))</b></td></tr>"]
            if scene.declared {
                for action in scene.actions {
                    rows.append("<tr><td align=\"left\">\(html(action.name))" + (action.payload.map { " <font color=\"#666666\">\(html($0))</font>" } ?? "") + "</td></tr>")
                }
                if scene.actions.isEmpty { rows.append("<tr><td><i>no actions</i></td></tr>") }
            } else {
                lines.append("  // \(scene.name) is a Swift or pack scene: it declares no actions, effects or routes")
                rows.append("<tr><td><i>declares no actions, effects or routes</i></td></tr>")
                rows.append("<tr><td><i>(a Swift or pack scene)</i></td></tr>")
            }
            let node = "  \(quoted(scene.name)) [shape=plain, label=<<table border=\"1\" cellborder=\"0\" cellspacing=\"0\" cellpadding=\"4\">"
                + rows.joined() + "</table>>];"
            if scene.slots.isEmpty { lines.append(node) } else { lines += children(of: scene, node: node, drawn: drawn) }
            for effect in scene.effects {
                let node = "effect:\(effect.service).\(effect.op)"
                lines.append("  \(quoted(node)) [shape=component, style=filled, fillcolor=\"#fff3d6\", label=\(quoted(effect.service + "." + effect.op))];")
                var label = effect.by.joined(separator: ", ")
                let outcomes = [effect.then.map { "then " + $0 }, effect.onError.map { "catch " + $0 }].compactMap { $0 }
                if !outcomes.isEmpty { label += (label.isEmpty ? "" : "\n") + outcomes.joined(separator: ", ") }
                lines.append("  \(quoted(scene.name)) -> \(quoted(node)) [style=dashed, color=\"#b07d00\", label=\(quoted(label))];")
            }
            for route in scene.routes {
                var label = route.kind + (route.by.isEmpty ? "" : " (" + route.by.joined(separator: ", ") + ")")
                if let onResult = route.onResult { label += "\nresult: " + onResult }
                if let target = route.target {
                    if !drawn.contains(target) && !elsewhere.contains(target) { elsewhere.append(target) }
                    lines.append("  \(quoted(scene.name)) -> \(quoted(target)) [penwidth=1.5, label=\(quoted(label))];")
                } else {
                    let node = "\(scene.name):\(route.kind)"
                    lines.append("  \(quoted(node)) [shape=plaintext, fontcolor=\"#555555\", label=\(quoted(route.kind))];")
                    lines.append("  \(quoted(scene.name)) -> \(quoted(node)) [style=dotted, label=\(quoted(route.by.joined(separator: ", ")))];")
                }
            }
        }
        for name in elsewhere {
            lines.append("  \(quoted(name)) [shape=box, style=\"rounded,dashed\", label=\(quoted(name + "\n(not drawn here)"))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A scene with child slots: a cluster that holds its node and a node
    /// per slot, the slot's outputs an edge back to the scene, and an edge
    /// to the child's scene type where it is drawn too.
    static func children(of scene: SceneGraph, node: String, drawn: Set<String>) -> [String] {
        var lines = [
            "  subgraph \(quoted("cluster_" + scene.name)) {",
            "    label=\(quoted(scene.name + " and its children")); style=\"rounded,dashed\"; color=\"#3f7f3f\"; fontcolor=\"#3f7f3f\";",
            "  " + node,
        ]
        let kinds = ["one": "one child", "optional": "an optional child", "keyed": "a child per key"]
        var edges: [String] = []
        for slot in scene.slots {
            let id = scene.name + "#" + slot.name
            var label = slot.name + ": " + slot.scene + "\n" + (kinds[slot.kind] ?? slot.kind)
            if slot.intercept { label += "\nintercepts (\(slot.name)/willSend)" }
            lines.append("    \(quoted(id)) [shape=box, style=\"rounded,filled\", fillcolor=\"#e3f1e3\", label=\(quoted(label))];")
            edges.append("  \(quoted(scene.name)) -> \(quoted(id)) [color=\"#3f7f3f\", arrowhead=odiamond, label=\"holds\"];")
            if !slot.outputs.isEmpty {
                edges.append("  \(quoted(id)) -> \(quoted(scene.name)) [style=dashed, color=\"#3f7f3f\", label=\(quoted(slot.outputs.joined(separator: "\n")))];")
            }
            if drawn.contains(slot.scene) {
                edges.append("  \(quoted(id)) -> \(quoted(slot.scene)) [style=dotted, color=\"#3f7f3f\", arrowhead=empty, label=\"scene\"];")
            }
        }
        return lines + ["  }"] + edges
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n") + "\""
    }

    static func html(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
