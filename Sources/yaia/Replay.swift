import ArgumentParser
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "replay")
}
