/// Reading JSON that collects every problem rather than stopping at the first:
/// what scene documents and scenario files share.
protocol ProblemReader {
    var problems: [DocumentProblem] { get set }
    mutating func problem(_ code: DocumentProblem.Code, _ message: String, at pointer: String)
}

extension ProblemReader {
    mutating func problem(_ code: DocumentProblem.Code, _ message: String, at pointer: String) {
        problems.append(DocumentProblem(code, message, at: pointer))
    }

    /// Reports members not in `known` and missing `required` ones.
    mutating func members(of o: JSONObject, _ what: String, known: [String], required: [String] = [], at pointer: String) {
        for key in o.keys where !known.contains(key) {
            problem(.unknownMember, "\"\(key)\" is not a member of \(what)" + Suggestion.hint(key, among: known),
                    at: JSONPointer.appending(pointer, key))
        }
        for key in required where o[key] == nil {
            problem(.missingMember, "\(what) needs \"\(key)\"", at: pointer)
        }
    }

    mutating func object(_ json: JSON, _ what: String, at pointer: String) -> JSONObject? {
        guard case .object(let o) = json else {
            problem(.wrongType, "\(what) must be an object, not \(json.kindName)", at: pointer)
            return nil
        }
        return o
    }

    /// An optional member: nil, and no problem, when it is absent.
    mutating func object(_ json: JSON?, _ what: String, at pointer: String) -> JSONObject? {
        guard let json else { return nil }
        return object(json, what, at: pointer)
    }
}
