import ArgumentParser
struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "graph")
}
