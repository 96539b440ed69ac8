import Testing
import YaiaCore
import YaiaKit
@testable import YaiaRuntime

/// Registering documents one by one costs the same however many there are:
/// the names their routes are checked against are kept as the catalog
/// grows, never built anew for each document.
@Suite struct RegistrationTests {
    /// A document whose route names `target`.
    func document(_ name: String, routingTo target: String) -> JSON {
        ["yaia": 1, "scene": .string(name), "state": ["n": 0],
         "actions": ["go": ["route": ["push": .string(target)]]]]
    }

    /// Where a set keeps its elements (a set is one reference to its storage).
    func storage(_ names: Set<String>) -> UInt {
        withUnsafeBytes(of: names) { $0.load(as: UInt.self) }
    }

    @Test func theNamesAreKeptInPlaceNotRebuilt() throws {
        #expect(MemoryLayout<Set<String>>.size == MemoryLayout<UInt>.size)
        var catalog = Catalog()
        var inPlace = 0
        for i in 0..<300 {
            // With room for one more name, a set kept in place stays where it is.
            let before = catalog.nameSet.count < catalog.nameSet.capacity ? storage(catalog.nameSet) : nil
            var added: [DocumentScene] = []
            let target = i == 0 ? "t/0" : "t/\(i - 1)"
            _ = try catalog.register(document("t/\(i)", routingTo: target), depth: 512, added: &added)
            #expect(added.count == 1)
            if let before {
                #expect(storage(catalog.nameSet) == before, "registration \(i) rebuilt the names")
                inPlace += 1
            }
        }
        #expect(inPlace > 200)
        #expect(catalog.nameSet == Set(catalog.names))
        #expect(catalog.documents.count == 300)
    }

    @Test func routesAreStillCheckedAgainstTheNames() throws {
        var catalog = Catalog()
        var added: [DocumentScene] = []
        _ = try catalog.register(document("t/a", routingTo: "t/a"), depth: 512, added: &added)
        _ = try catalog.register(document("t/b", routingTo: "t/a"), depth: 512, added: &added)
        let error = yaiaError { () throws(YaiaError) in try catalog.register(document("t/c", routingTo: "t/z"), depth: 512, added: &added) }
        #expect(error?.code == .badDocument)
        #expect(error?.problems?.arrayValue?.first?["code"] == "unknown_scene")
        #expect(catalog.nameSet == ["t/a", "t/b"])
    }
}
