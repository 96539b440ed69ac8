import Testing
@testable import YaiaCore
import YaiaKit

// The fused search, `{"in": [NEEDLE, {"lower": TEXT}]}`, against the
// general path it stands in for (`lower` made, then `in`): the same value
// or error, and the same steps taken, for ASCII text with and without capitals, text
// that is not ASCII, values that are not strings, and needles of any case.

private let texts: [JSON] = [
    "Lyon 12", "About LYON and bank, number 3.\nSecond line of note 3", "", "lyon", "LY", "ÉCOLE de Lyon", "straße",
    .string(String(repeating: "Garden ", count: 60) + "PIANO 9"), .int(1234), .double(2.5), .bool(true), .null,
    ["A", "Lyon"], ["key": "Lyon"],
]
private let needles: [JSON] = ["", "lyon", "Lyon", "ly", "on 1", "é", "école", "piano 9", "ss", "1234", "2.5", "true", .null, .int(12), ["a"]]

private func outcome(_ rule: LogicRule, _ data: JSON, base: Int) -> (Result<JSON, YaiaError>, LogicBudget) {
    var budget = LogicBudget(base: base, perUnit: 0)
    let value = Result { () throws(YaiaError) in try rule.evaluate(data, budget: &budget) }
    return (value, budget)
}

@Test func fusedSearchIsTheGeneralPath() throws {
    let rules: [JSON] = [
        ["in": [["var": "needle"], ["lower": ["var": "text"]]]],
        ["in": [["lower": ["var": "needle"]], ["lower": ["var": "text"]]]],
        ["filter": [["var": "items"], ["in": [["lower": ["root": "needle"]], ["lower": ["var": "title"]]]]]],
    ]
    for rule in rules {
        let fused = try LogicRule(rule), general = try LogicRule(unfused: rule)
        #expect(fused.program.code.contains { $0.op == .inLowered })
        #expect(!general.program.code.contains { $0.op == .inLowered })
        for text in texts {
            for needle in needles {
                let items: JSON = .array(JSONArray(texts.map { ["title": $0] }))
                let data: JSON = ["needle": needle, "text": text, "items": items]
                // A budget that runs out before the end too: it must run out alike.
                for base in [100_000, 5] {
                    let (a, spentA) = outcome(fused, data, base: base)
                    let (b, spentB) = outcome(general, data, base: base)
                    #expect(a == b, "\(rule) with text \(text), needle \(needle)")
                    // Steps left matter while the evaluation goes on; past a
                    // budget's end, only the error does.
                    if case .success = a {
                        #expect(spentA.left == spentB.left, "steps of \(rule) with text \(text), needle \(needle)")
                    }
                }
            }
        }
    }
}

@Test func fusedSearchFindsWhatLoweringFinds() throws {
    let rule = try LogicRule(["in": [["var": "needle"], ["lower": ["var": "text"]]]])
    #expect(try rule.evaluate(["needle": "lyon", "text": "About LYON"]) == true)
    #expect(try rule.evaluate(["needle": "école", "text": "ÉCOLE"]) == true)
    #expect(try rule.evaluate(["needle": "LYON", "text": "About LYON"]) == false)
    #expect(try rule.evaluate(["needle": "on b", "text": "LYON BANK"]) == true)
    #expect(try rule.evaluate(["needle": "x", "text": "LYON"]) == false)
}
