import YaiaKit

/// Reading JSON that collects every problem rather than stopping at the first:
/// what scene documents and scenario files share.
protocol ProblemReader {
    var problems: [DocumentProblem] { get set }
    /// Members read under the name they misspell: (pointer as read, pointer as written).
    var renamed: [(read: String, written: String)] { get set }
    mutating func problem(_ code: DocumentProblem.Code, _ message: String, at pointer: String)
}

extension ProblemReader {
    mutating func problem(_ code: DocumentProblem.Code, _ message: String, at pointer: String) {
        problems.append(DocumentProblem(code, message, at: pointer))
    }

    /// Reports members not in `known` and missing `required` ones. A member
    /// that misspells a known one the object lacks is reported with the
    /// suggestion, and the object returned holds it under that name, so
    /// that the problems inside it are reported too (`restorePointers`
    /// points them back at the member as written).
    @discardableResult
    mutating func members(of o: JSONObject, _ what: String, known: [String], required: [String] = [],
                          at pointer: String) -> JSONObject {
        var read = o
        for key in o.keys where !known.contains(key) {
            let near = Suggestion.nearest(key, among: known)
            problem(.unknownMember, "\"\(key)\" is not a member of \(what)" + (near.map { "; did you mean \"\($0)\"?" } ?? ""),
                    at: JSONPointer.appending(pointer, key))
            if let near, read[near] == nil {
                read[near] = read[key]
                read[key] = nil
                renamed.append((JSONPointer.appending(pointer, near), JSONPointer.appending(pointer, key)))
            }
        }
        for key in required where read[key] == nil {
            problem(.missingMember, "\(what) needs \"\(key)\"", at: pointer)
        }
        return read
    }

    /// Points the problems found inside misspelled members at them as written.
    mutating func restorePointers() {
        guard !renamed.isEmpty else { return }
        for i in problems.indices {
            // The innermost first: its pointer as read lies under the outer ones'.
            for (read, written) in renamed.reversed() where problems[i].at == read || problems[i].at.hasPrefix(read + "/") {
                problems[i].at = written + problems[i].at.dropFirst(read.count)
            }
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
