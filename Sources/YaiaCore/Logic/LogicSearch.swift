import YaiaKit

// A case-insensitive search, `{"in": [NEEDLE, {"lower": TEXT}]}`, runs once
// per element of a filter: the notes' search lowers the title and body of
// each of 10,000 notes at every keystroke, each a string made, searched and
// freed. The compiler fuses the two operators into one instruction that
// searches ASCII text with its capitals folded as it reads them: nothing is
// made. Other text takes the general path, `lower` then `in`. Kept for speed
// (docs/architecture.md, "Paths kept for speed"): the paths bench times it
// against the unfused rule, and LogicSearchTests holds the two equal.

extension LogicCompiler {
    /// The fused instruction for `in` of `needle` in `haystack` when
    /// `haystack` is a `lower`; nil otherwise.
    func fusedSearch(_ needle: Int32, _ haystack: Int32) -> LogicInstruction? {
        let lowered = code[Int(haystack)]
        guard fuses, lowered.kind == .unary, lowered.op == .lower else { return nil }
        return LogicInstruction(kind: .binary, op: .inLowered, a: needle, b: lowered.a)
    }
}

extension LogicMachine {
    /// `contains(lower(text), needle)`, with the same steps charged: the
    /// `lower` instruction's own step, and what `lower` and `in` charge for
    /// the text's length.
    mutating func containsLowered(_ text: JSON, _ needle: JSON, _ scope: LogicScope) throws(LogicStop) -> Bool {
        try charge(1)
        guard case .string(var s) = text, s.withUTF8({ LogicMachine.isASCII($0) }) else {
            return try contains(try unary(.lower, text, scope), needle)
        }
        try charge(3 * (s.utf8.count >> 7))
        var wanted = try self.text(needle)
        return s.withUTF8 { h in wanted.withUTF8 { LogicMachine.firstIndex(of: $0, in: h, from: 0, folding: true) } } != nil
    }

    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for c in bytes where c >= 0x80 { return false }
        return true
    }
}
