// The command line read by hand: subcommands, `--name VALUE` (or
// `--name=VALUE`) options, positional arguments, `--help` and `--version`.
// Hand-written so that Yaia's package depends on nothing: a scene pack that
// depends on Yaia resolves and clones no other package.

/// A command of `yaia`: what it takes (its configuration), read from the
/// arguments given, then run.
protocol Command: Sendable {
    static var configuration: CommandConfiguration { get }
    init(_ given: Arguments) throws(CommandError)
    func run() throws
}

/// A command's name, help and what it takes. A command with subcommands and
/// no arguments of its own shows its help when none is named.
struct CommandConfiguration: Sendable {
    var commandName: String
    var abstract: String
    var discussion = ""
    var version: String?
    var options: [OptionSpec] = []
    var arguments: [ArgumentSpec] = []
    var subcommands: [any Command.Type] = []
    /// False for a command that only groups subcommands.
    var runs = true
}

/// `--name VALUE`: given once (the last one counts) or, `repeatable`, any
/// number of times.
struct OptionSpec: Sendable {
    var name: String
    var valueName: String
    var help: String
    var repeatable = false

    init(_ name: String, value: String? = nil, help: String, repeatable: Bool = false) {
        self.name = name
        self.valueName = value ?? name
        self.help = help
        self.repeatable = repeatable
    }

    var usage: String { "--\(name) <\(valueName)>" }
}

/// A positional argument: exactly one, or (`many`) one or more, or
/// (`optional` too) any number.
struct ArgumentSpec: Sendable {
    var name: String
    var help: String
    var many = false
    var optional = false

    var usage: String {
        let word = "<\(name)>" + (many ? " ..." : "")
        return optional ? "[\(word)]" : word
    }
}

/// What a command was given, by option and argument name.
struct Arguments {
    var options: [String: [String]] = [:]
    var positionals: [String: [String]] = [:]
    /// How the command is called ("yaia new pack"), for messages.
    var path = ""

    /// The option's value, the last when it was given more than once.
    func option(_ name: String) -> String? { options[name]?.last }

    /// Every value of a repeatable option, in order.
    func values(_ name: String) -> [String] { options[name] ?? [] }

    /// The option's value as a whole number.
    func int(_ name: String) throws(CommandError) -> Int? {
        guard let text = option(name) else { return nil }
        guard let value = Int(text) else { throw invalid(text, name) }
        return value
    }

    /// The option's value as one of an enumeration's raw values.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, default value: T) throws(CommandError) -> T
    where T.RawValue == String {
        guard let text = option(name) else { return value }
        guard let chosen = T(rawValue: text) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw invalid(text, name, " (one of: \(names))")
        }
        return chosen
    }

    /// The one value of a required argument (the reader has checked it is there).
    func argument(_ name: String) -> String { positionals[name]?.first ?? "" }

    /// Every value of an argument that takes several.
    func arguments(_ name: String) -> [String] { positionals[name] ?? [] }

    func invalid(_ text: String, _ name: String, _ detail: String = "") -> CommandError {
        usageError("The value '\(text)' is invalid for '--\(name) <\(name)>'\(detail)", path)
    }
}

extension CommandError {
    /// The work failed and the command has said so: status 1, nothing more printed.
    static let failed = CommandError(status: 1, message: "")
}

/// A usage error (status 2) as it is printed: the problem, then where to read more.
func usageError(_ problem: String, _ path: String) -> CommandError {
    .usage("\(problem)\n  See '\(path) --help' for more information.")
}

/// What the command line asks for: a command to run, or text to print.
enum Invocation {
    case run(any Command)
    case help(String)
    case version(String)
}

enum ArgumentReader {
    /// The command the leading words of `args` name, taken from it, with its
    /// words as typed after the program's name ("yaia new pack").
    static func subcommand(of root: any Command.Type, taking args: inout ArraySlice<String>) -> (any Command.Type, String) {
        var command = root
        var path = root.configuration.commandName
        while let word = args.first, let sub = command.configuration.subcommands.first(where: { $0.configuration.commandName == word }) {
            command = sub
            path += " " + word
            args = args.dropFirst()
        }
        return (command, path)
    }

    /// Reads `args` (without the program's name) against the root command.
    static func read(_ args: [String], root: any Command.Type) throws(CommandError) -> Invocation {
        var args = args[...]
        // `yaia help [COMMAND...]` is `yaia [COMMAND...] --help`.
        if args.first == "help" {
            args = args.dropFirst()
            let (command, path) = subcommand(of: root, taking: &args)
            if let word = args.first { throw usageError("Unknown command '\(word)'", path) }
            return .help(help(command, path: path))
        }
        let (command, path) = subcommand(of: root, taking: &args)
        let configuration = command.configuration
        if args.contains(where: { $0 == "--help" || $0 == "-h" }) { return .help(help(command, path: path)) }
        if let version = configuration.version, args.first == "--version" { return .version(version) }
        if !configuration.runs {
            if let word = args.first {
                throw usageError(word.hasPrefix("-") ? "Unknown option '\(word)'" : "Unknown command '\(word)'", path)
            }
            return .help(help(command, path: path))
        }
        var given = Arguments(path: path)
        var words: [String] = []
        var unknown: String?
        while let word = args.first {
            args = args.dropFirst()
            if word == "--" {
                words += args
                break
            }
            guard word.hasPrefix("-") && word.count > 1 && Double(word) == nil else {
                words.append(word)
                continue
            }
            var name = String(word.dropFirst(word.hasPrefix("--") ? 2 : 1))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard word.hasPrefix("--"), let option = configuration.options.first(where: { $0.name == name }) else {
                // Reported after a missing argument, which says more ("-x" for a NAME).
                unknown = unknown ?? String(word.split(separator: "=", maxSplits: 1).first ?? "")
                continue
            }
            if value == nil, let next = args.first, !(next.hasPrefix("-") && next.count > 1 && Double(next) == nil) {
                value = next
                args = args.dropFirst()
            }
            guard let value else { throw usageError("Missing value for '\(option.usage)'", path) }
            given.options[name, default: []].append(value)
        }
        given.positionals = try assign(words, to: configuration.arguments, path: path)
        if let unknown { throw usageError("Unknown option '\(unknown)'", path) }
        return .run(try command.init(given))
    }

    /// The positional words, given to the arguments in order.
    static func assign(_ words: [String], to specs: [ArgumentSpec], path: String) throws(CommandError) -> [String: [String]] {
        var words = words[...]
        var assigned: [String: [String]] = [:]
        for spec in specs {
            if spec.many {
                assigned[spec.name] = Array(words)
                words = []
            } else if let word = words.first {
                assigned[spec.name] = [word]
                words = words.dropFirst()
            }
            if assigned[spec.name, default: []].isEmpty && !spec.optional {
                throw usageError("Missing expected argument '\(spec.usage)'", path)
            }
        }
        if let extra = words.first { throw usageError("Unexpected argument '\(extra)'", path) }
        return assigned
    }

    /// The help of `command`, called as `path`.
    static func help(_ command: any Command.Type, path: String) -> String {
        let c = command.configuration
        var text = "OVERVIEW: \(c.abstract)\n\n"
        if !c.discussion.isEmpty { text += c.discussion.split(separator: "\n").map { wrap(String($0), width: 80) }.joined() + "\n" }
        var usage = "USAGE: \(path)"
        if !c.subcommands.isEmpty && !c.runs {
            usage += " <subcommand>"
        } else {
            for option in c.options { usage += " [\(option.usage)]" + (option.repeatable ? " ..." : "") }
            for argument in c.arguments { usage += " " + argument.usage }
        }
        text += usage + "\n\n"
        if !c.arguments.isEmpty {
            text += "ARGUMENTS:\n" + c.arguments.map { entry("<\($0.name)>", $0.help) }.joined() + "\n"
        }
        text += "OPTIONS:\n"
        for option in c.options {
            text += entry(option.usage, option.help)
        }
        if c.version != nil { text += entry("--version", "Show the version.") }
        text += entry("-h, --help", "Show help information.")
        if !c.subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n"
            for sub in c.subcommands { text += entry(sub.configuration.commandName, sub.configuration.abstract) }
            text += "\n  See '\(path.split(separator: " ").first ?? "") help <subcommand>' for detailed help.\n"
        }
        return text
    }

    /// "  NAME   HELP", the help wrapped beside the names' column.
    static func entry(_ name: String, _ help: String) -> String {
        let column = 26
        let lines = wrap(help, width: 80 - column).split(separator: "\n")
        var text = "  " + name
        if name.count + 2 >= column - 1 {
            text += "\n" + String(repeating: " ", count: column)
        } else {
            text += String(repeating: " ", count: column - 2 - name.count)
        }
        for (i, line) in lines.enumerated() {
            if i > 0 { text += String(repeating: " ", count: column) }
            text += line + "\n"
        }
        return lines.isEmpty ? text + "\n" : text
    }

    /// `text` in lines of at most `width` characters, broken at spaces, each ended by "\n".
    static func wrap(_ text: String, width: Int) -> String {
        var out = ""
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                out += line + "\n"
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return out + line + "\n"
    }
}
