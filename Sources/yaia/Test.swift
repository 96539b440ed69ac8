import ArgumentParser
struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "test")
}
