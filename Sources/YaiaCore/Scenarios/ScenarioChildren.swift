import YaiaKit

// A scenario step about a child scene (docs/scenarios.md, "Child scenes"):
// `"path": [SLOT, KEY?, ...]` from the scene under test, the same path a
// send takes (docs/composition.md).

extension Scenario {
    /// The most items of a step's path: a slot and a key per level of the deepest nesting.
    public static let maxPathItems = 2 * 16

    /// The label of a step: its input, and the child it is about.
    static func label(_ input: Input, path: [JSON]?) -> String {
        guard let path else { return label(input) }
        let at = "at " + JSON.array(JSONArray(path)).serialized()
        if case .none = input { return "expect " + at }
        return label(input) + " " + at
    }
}

extension ScenarioReader {
    /// A step's `path`: a list of slot names, each of a keyed slot followed
    /// by its key (a string or an integer). It goes with a send (the
    /// action goes to that child) or with a step without input (its
    /// expectations are about that child).
    mutating func readPath(_ json: JSON, input: Scenario.Input, at pointer: String) -> [JSON]? {
        switch input {
        case .send, .none: break
        default:
            problem(.badValue, "\"path\" goes with a send or a step without input; a resolve's state is the scene that emitted the effect", at: pointer)
            return nil
        }
        guard case .array(let items) = json, !items.isEmpty, items.count <= Scenario.maxPathItems,
              case .string = items[0] else {
            problem(json.arrayValue == nil ? .wrongType : .badValue,
                    "\"path\" names a child: [SLOT, KEY?, ...] from the scene under test, a slot's name first (at most \(Scenario.maxPathItems) items)",
                    at: pointer)
            return nil
        }
        var ok = true
        for (i, item) in items.enumerated() {
            switch item {
            case .string, .int, .uint: continue
            default:
                problem(.wrongType, "a path's items are slot names and keys: strings or integers, not \(item.kindName)",
                        at: JSONPointer.appending(pointer, i))
                ok = false
            }
        }
        return ok ? items.elements : nil
    }
}
