// `yaia new pack NAME` (NewPack.swift) and `yaia new scene NAME`: a scene
// document to start from, which `yaia check` passes.
import Glibc
import YaiaCore
import YaiaKit

struct NewCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Start a scene pack (a Swift package) or a scene document.",
        subcommands: [NewPackCommand.self, NewSceneCommand.self],
        runs: false
    )

    init(_ given: Arguments) {}
    func run() {}
}

struct NewSceneCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "scene",
        abstract: "Write a scene document (docs/scene-documents.md) to start from.",
        discussion: """
            A counter with open arguments, actions with a payload and a guard, an effect with its \
            outcomes, a route and a view model; `yaia check` passes it and `yaia run` runs it. NAME is \
            the scene type's name: parts of lowercase letters, digits, "-" or "_", joined by "/" \
            (like "shop/cart").
            """,
        options: [OptionSpec("file", help: "The file to write (default: the name's last part, .json, here); never overwritten.")],
        arguments: [ArgumentSpec(name: "name", help: "The scene type's name (like \"shop/cart\").")]
    )

    var name: String
    var file: String?

    init(_ given: Arguments) {
        name = given.argument("name")
        file = given.option("file")
    }

    func run() throws {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        let valid = !parts.isEmpty && parts.allSatisfy { part in
            part.utf8.first.map { $0 >= 0x61 && $0 <= 0x7A } == true && part.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F
            }
        }
        guard valid, name.utf8.count <= 128 else {
            throw CommandError.usage("new scene: invalid NAME \"\(name)\": parts of a lowercase letter, then lowercase "
                                     + "letters, digits, \"-\" or \"_\", joined by \"/\" (like \"shop/cart\")")
        }
        let path = file ?? String(parts[parts.count - 1]) + ".json"
        guard kind(of: path) == .missing else { throw CommandError.usage("new scene: \(path) exists; new scene writes a new file") }
        try writeNew(path, Self.document(name).pretty() + "\n")
        Out.stdout("""
            created the scene \(name) in \(path)
            next:
              yaia check \(shellQuoted(path))
              yaia run \(shellQuoted(path))

            """)
    }

    /// The skeleton: every part of a document, each in its simplest use.
    static func document(_ name: String) -> JSON {
        [
            "yaia": 1,
            "scene": .string(name),
            "description": "A counter that saves its count: replace it with your scene.",
            "args": ["start": ["type": "integer", "default": 0, "description": "the count to start from"]],
            "state": ["count": ["var": "args.start"], "saving": false, "error": .null],
            "actions": [
                "increment": ["set": ["count": ["+": [["var": "state.count"], 1]]]],
                "decrement": [
                    ["description": "The count stays at or above zero.",
                     "when": [">": [["var": "state.count"], 0]],
                     "set": ["count": ["-": [["var": "state.count"], 1]]]],
                ],
                "add": ["payload": "integer", "set": ["count": ["+": [["var": "state.count"], ["var": "payload"]]]]],
                "save": [
                    ["when": ["var": "state.saving"]],
                    ["set": ["saving": true, "error": .null],
                     "effects": [["service": "store", "op": "put",
                                  "args": ["key": .string(name + "/count"), "value": ["var": "state.count"]],
                                  "then": "saved", "catch": "saveFailed", "timeout": 5]]],
                ],
                "saved": ["set": ["saving": false]],
                "saveFailed": ["payload": ["message": "string?"],
                               "set": ["saving": false, "error": ["var": "payload.message"]]],
                "done": ["route": ["pop": true, "result": ["count": ["var": "state.count"]]]],
            ],
            "view": [
                "count": ["var": "state.count"],
                "canDecrement": [">": [["var": "state.count"], 0]],
                "saving": ["var": "state.saving"],
                "error": ["var": "state.error"],
            ],
        ]
    }
}
