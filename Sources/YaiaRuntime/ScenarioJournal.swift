import YaiaCore

extension Runtime {
    /// `scenario_from_journal`: a recorded journal as scenarios, one per scene opened.
    func scenariosFromJournal(path: String) throws(YaiaError) -> JSON {
        throw YaiaError(.badJournal, "not yet")
    }
}
