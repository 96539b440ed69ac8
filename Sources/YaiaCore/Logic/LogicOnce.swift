import YaiaKit

// An operator inside an iteration body that reads nothing of the element
// (a constant, the rule's data through `root`) has the same value for every
// element: a search's `{"lower": {"root": "state.query"}}` in a filter over
// 10,000 notes. The compiler wraps it in a `once` instruction, and it is
// evaluated the first time the body needs it, then read from its slot for
// the rest of the evaluation (the data does not change while it runs).

extension LogicCompiler {
    /// `node` evaluated once per evaluation; constants are as cheap already.
    mutating func once(_ node: Int32) -> Int32 {
        let ins = code[Int(node)]
        guard !ins.isConstant, ins.kind != .once else { return node }
        onceSlots += 1
        return emit(LogicInstruction(kind: .once, a: node, b: Int32(onceSlots - 1)))
    }
}

extension LogicMachine {
    mutating func once(_ ins: LogicInstruction, _ scope: LogicScope) throws(LogicStop) -> JSON {
        let slot = Int(ins.b)
        if slot < onceValues.count, let value = onceValues[slot] { return value }
        let value = try eval(ins.a, scope)
        if onceValues.isEmpty { onceValues = Array(repeating: nil, count: program.onceSlots) }
        onceValues[slot] = value
        return value
    }
}
