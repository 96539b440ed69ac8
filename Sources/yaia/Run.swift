// `yaia run PACK|DOC|SCENE`: a scene in a terminal. It starts as the root of
// a flow, so its routes navigate; each line sends an action to the top scene,
// or is a session command (":help").
import Glibc
import YaiaCore
import YaiaKit

/// A path or a scene name given on the command line, and the scene types it names.
struct Target {
    /// Paths to add to the config's scenes.
    let scenes: [String]
    let path: String?
    let name: String?

    /// A path that exists is scenes to load; anything else is a scene type's name.
    init(_ text: String) {
        if kind(of: text) != .missing {
            scenes = [text]
            path = text
            name = nil
        } else {
            scenes = []
            path = nil
            name = text
        }
    }

    /// The scene types the target means in `host`.
    func sceneTypes(in host: Host) throws(CommandError) -> [String] {
        if let path {
            let names = host.sceneTypes(from: path)
            guard !names.isEmpty else { throw .usage("\(path) brought no scene types") }
            return names
        }
        let name = name ?? ""
        let all = host.allSceneTypes
        guard all.contains(name) else {
            let known = all.isEmpty ? "no scene is loaded (--scenes PATH loads some)" : "the scenes loaded are " + all.joined(separator: ", ")
            throw .usage("\"\(name)\" is neither a file nor a scene type: \(known)")
        }
        return [name]
    }

    /// The one scene to run: `chosen`, or the only one the target names.
    func scene(in host: Host, chosen: String?) throws(CommandError) -> String {
        let names = try sceneTypes(in: host)
        if let chosen {
            guard host.allSceneTypes.contains(chosen) else {
                throw .usage("no scene type \"\(chosen)\"; \(path ?? chosen) has " + names.joined(separator: ", "))
            }
            return chosen
        }
        guard names.count == 1, let only = names.first else {
            throw .usage("\(path ?? "") has \(names.count) scenes (\(names.joined(separator: ", "))): choose one with --scene NAME")
        }
        return only
    }
}

struct RunCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scene in the terminal: see its view model, send it actions.",
        discussion: """
            TARGET is a scene pack, a scene document or a folder of them (loaded, then its scene is run; \
            --scene chooses when it has several), or the name of a scene type loaded with --scenes. The scene \
            is the root of a flow: routes navigate, and actions go to the top scene. A line is an action, \
            `NAME` or `NAME PAYLOAD` (PAYLOAD is JSON; text that is not JSON is sent as a string) or the \
            action's JSON; or a session command (:help lists them). Effects no service performs stay \
            pending until `:resolve ID JSON` or `:fail ID JSON`. On a terminal, lines can be edited \
            (arrows, ctrl-a/e, backspace) and the history walked (up/down); tab completes action names. \
            Standard input that is no terminal is read a line at a time.
            """,
        options: HostOptions.options + [
            OptionSpec("scene", value: "name", help: "The scene type to run when TARGET has several."),
            OptionSpec("args", value: "json", help: "The scene's open arguments (JSON object). (default: {})"),
        ],
        arguments: [ArgumentSpec(name: "target", help: "A scene pack, a scene document, a folder of them, or a scene type's name.")]
    )

    var host: HostOptions
    var scene: String?
    var args: String
    var target: String

    init(_ given: Arguments) {
        host = HostOptions(given)
        scene = given.option("scene")
        args = given.option("args") ?? "{}"
        target = given.argument("target")
    }

    func run() throws {
        let target = Target(self.target)
        let runtime = try host.host(scenes: target.scenes)
        let name = try target.scene(in: runtime, chosen: scene)
        guard let args = parseJSON(args), case .object = args else { throw CommandError.usage("--args must be a JSON object") }
        var session = RunSession(runtime: runtime)
        try session.start(name, args: args)
        session.loop()
    }
}

/// The actions a scene takes, from its schema: names and payload types.
struct ActionList {
    var declared = false
    var actions: [(name: String, payload: String?)] = []

    init() {}

    init(runtime: Host, scene: String) {
        let answer = runtime.execute(["op": "schema", "scene": .string(scene)])
        guard answer["declared"] == true else { return }
        declared = true
        for alternative in answer["schema"]?.at(pointer: "/$defs/action/oneOf")?.arrayValue ?? [] {
            guard let name = alternative.at(pointer: "/properties/type/const")?.stringValue else { continue }
            actions.append((name, alternative.at(pointer: "/properties/payload").map(typeText)))
        }
    }

    var text: String {
        guard declared else { return "actions: not declared (a Swift or pack scene); send any NAME [PAYLOAD]" }
        return "actions: " + actions.map { action in action.payload.map { "\(action.name) \($0)" } ?? action.name }.joined(separator: ", ")
    }
}

/// A JSON Schema of a payload as a short type: string, integer?, {user: {email: string}}, [string].
func typeText(_ schema: JSON) -> String {
    var types: [String] = []
    switch schema["type"] {
    case .string(let t)?: types = [t]
    case .array(let list)?: types = list.compactMap(\.stringValue)
    default: break
    }
    let optional = types.contains("null")
    types.removeAll { $0 == "null" }
    var text: String
    if let properties = schema["properties"]?.objectValue {
        text = "{" + properties.members.map { "\($0.key): \(typeText($0.value))" }.joined(separator: ", ") + "}"
    } else if let items = schema["items"] {
        text = "[" + typeText(items) + "]"
    } else if let values = schema["enum"]?.arrayValue {
        text = values.map(\.text).joined(separator: "|")
    } else {
        text = types.isEmpty ? "any" : types.joined(separator: "|")
    }
    return optional ? text + "?" : text
}

struct RunSession {
    let runtime: Host
    let editor = LineEditor()
    var flow: Int64 = 0
    var top = ""
    var actions = ActionList()
    /// A service performs an effect the last line emitted: its answer is awaited a moment.
    var running = false

    init(runtime: Host) { self.runtime = runtime }

    mutating func start(_ scene: String, args: JSON) throws(CommandError) {
        let answer = runtime.execute(["op": "start", "scene": .string(scene), "args": args])
        guard answer["ok"] == true, let id = answer["flow"]?.int64Value else { throw .failure(errorLine(answer)) }
        flow = id
        Out.stdout("type an action; :help lists the commands\n")
        show(answer)
    }

    static let help = """
        A line is one of:
          NAME [PAYLOAD]      send the action NAME to the top scene (PAYLOAD: JSON, or text sent as a string)
          {"type": ...}       send this action
          :resolve ID JSON    give effect ID its result
          :fail ID JSON       give effect ID an error
          :state              the top scene's state
          :view               its view model
          :actions            the actions it takes
          :stack              the flow's scenes
          :receive [SECONDS]  wait for what services answer
          :help               this list
          :quit               the end (so are ctrl-d and the end of input)

        """

    mutating func loop() {
        while let line = editor.readLine(prompt: "\(top)> ") {
            let trimmed = line.trimmingSpaces()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            running = false
            if !handle(trimmed) { break }
            drain(waiting: running ? 2 : 0)
        }
    }

    /// Runs one line; false when it ends the session.
    mutating func handle(_ line: String) -> Bool {
        let word = line.prefix { $0 != " " }
        let rest = line.dropFirst(word.count).trimmingSpaces()
        // The words people try first, unless the scene has actions of these names.
        var command = String(word)
        if ["quit", "exit", "help"].contains(command) && !actions.actions.contains(where: { $0.name == command }) {
            command = ":" + command
        }
        switch command {
        case ":quit", ":exit", ":q": return false
        case ":help": Out.stdout(Self.help)
        case ":actions": Out.stdout(actions.text + "\n")
        case ":state", ":view":
            let answer = runtime.execute(["op": "state", "scene": .int(currentScene)])
            guard answer["ok"] == true else { return report(answer) }
            Out.stdout(fields(answer[command == ":state" ? "state" : "viewModel"] ?? .null))
        case ":stack":
            let answer = runtime.execute(["op": "flow", "flow": .int(flow)])
            guard answer["ok"] == true else { return report(answer) }
            Out.stdout(stackLine(answer["stack"]) + "\n")
        case ":receive": drain(waiting: Double(rest) ?? 1)
        case ":resolve", ":fail":
            let id = rest.prefix { $0 != " " }
            guard let effect = Int64(id), let value = parseJSON(rest.dropFirst(id.count).trimmingSpaces()) else {
                Out.stdout("usage: \(command) ID JSON (an effect's id, then its \(command == ":fail" ? "error" : "result") as JSON)\n")
                return true
            }
            show(runtime.execute(["op": "resolve", "effect": .int(effect), command == ":fail" ? "error" : "result": value]))
        default:
            if command.hasPrefix(":") {
                Out.stdout("unknown command \(command); :help lists them\n")
                return true
            }
            guard let action = action(line) else {
                Out.stdout("not an action: NAME [PAYLOAD], or {\"type\": NAME, \"payload\": ...}\n")
                return true
            }
            show(runtime.execute(["op": "send", "flow": .int(flow), "action": action]))
        }
        return true
    }

    private func report(_ answer: JSON) -> Bool {
        Out.stdout("error " + errorLine(answer) + "\n")
        return true
    }

    /// The action a line means.
    func action(_ line: String) -> JSON? {
        if line.hasPrefix("{") { return parseJSON(line) }
        let name = line.prefix { $0 != " " }
        let text = line.dropFirst(name.count).trimmingSpaces()
        guard !text.isEmpty else { return ["type": .string(String(name))] }
        let payload = parseJSON(text) ?? (text.first.map { "{[\"".contains($0) } == true ? nil : .string(text))
        return payload.map { ["type": .string(String(name)), "payload": $0] }
    }

    /// The scene on top of the flow.
    var currentScene: Int64 {
        let answer = runtime.execute(["op": "flow", "flow": .int(flow)])
        return answer["stack"]?.arrayValue?.last?["id"]?.int64Value ?? 0
    }

    /// Prints an update: its effects and routes, then the top scene's view model.
    mutating func show(_ answer: JSON) {
        guard answer["ok"] == true else {
            Out.stdout("error " + errorLine(answer) + "\n")
            return
        }
        var text = ""
        for navigation in answer["navigationErrors"]?.arrayValue ?? [] {
            text += "navigation refused: " + errorLine(["error": navigation["error"] ?? .null]) + "\n"
        }
        for effect in answer["effects"]?.arrayValue ?? [] {
            let id = effect["id"]?.text ?? "?"
            let status = effect["status"]?.stringValue ?? ""
            if status == "running" { running = true }
            text += "effect #\(id) \(effect["service"]?.stringValue ?? "?").\(effect["op"]?.stringValue ?? "?") "
                + (effect["args"] ?? .null).text + " (\(status)" + (status == "pending" ? ": :resolve \(id) JSON or :fail \(id) JSON)" : ")") + "\n"
        }
        for route in answer["routes"]?.arrayValue ?? [] { text += "route " + routeText(route) + "\n" }
        if let stack = answer["stack"]?.arrayValue, let entry = stack.last {
            // The flow changed: the top scene may be another one.
            let name = entry["scene"]?.stringValue ?? "?"
            if stack.count > 1 { text += stackLine(answer["stack"]) + "\n" }
            if name != top {
                top = name
                actions = ActionList(runtime: runtime, scene: name)
                editor.completions = actions.actions.map(\.name) + [":help", ":quit", ":state", ":view", ":actions", ":stack", ":resolve", ":fail", ":receive"]
                text += "\(name): " + actions.text + "\n"
            }
            let id = entry["id"]?.int64Value ?? 0
            let seq = id == answer["scene"]?.int64Value ? answer["seq"] : runtime.execute(["op": "state", "scene": .int(id)])["seq"]
            text += "\(name) (scene \(id), seq \(seq?.text ?? "?")) view:\n" + fields(entry["viewModel"] ?? .null)
        } else if let id = answer["scene"]?.int64Value, id != currentScene {
            // An effect of a scene the flow has covered since.
            text += "scene \(id) (covered, seq \(answer["seq"]?.text ?? "?")) view:\n" + fields(answer["viewModel"] ?? .null)
        } else {
            text += "\(top) (scene \(answer["scene"]?.text ?? "?"), seq \(answer["seq"]?.text ?? "?")) view:\n" + fields(answer["viewModel"] ?? .null)
        }
        Out.stdout(text)
    }

    /// Updates the services delivered meanwhile, waiting up to `seconds` for the first.
    mutating func drain(waiting seconds: Double) {
        var wait = seconds
        while let event = runtime.receive(wait) {
            running = false
            wait = 0
            guard let json = parseJSON(event) else { continue }
            Out.stdout("event" + (json["effect"].map { " (effect #\($0.text))" } ?? "") + ":\n")
            show(json)
            wait = running ? 2 : 0
        }
    }

    func stackLine(_ stack: JSON?) -> String {
        "stack: " + (stack?.arrayValue ?? []).map { entry in
            (entry["presentation"] == "present" ? "*" : "") + (entry["scene"]?.stringValue ?? "?")
        }.joined(separator: " > ")
    }

    func routeText(_ route: JSON) -> String {
        guard let object = route.objectValue else { return route.text }
        for kind in ["push", "present", "replace", "popTo"] {
            if let target = object[kind]?.stringValue {
                return "\(kind) \(target)" + (object["args"].map { " " + $0.text } ?? "")
            }
        }
        return route.text
    }

    /// An object's members, one a line.
    func fields(_ value: JSON) -> String {
        guard let object = value.objectValue, !object.isEmpty else { return "  " + value.text + "\n" }
        let width = outputColumns()
        return object.members.map { "  \($0.key): \($0.value.readable(indent: "  ", used: 4 + $0.key.count, width: width))\n" }.joined()
    }
}

