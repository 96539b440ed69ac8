import YaiaKit

// `update`: the objects of a list with a given key changed by a rule, the
// rest left as they are. A toggle written as a `map` evaluates its rule on
// every element and builds a new list, which shares nothing with the old
// one; `update` finds the objects through the list's key ranges
// (JSONArrayKeys), evaluates the rule on them only, and changes them in
// place of a copy that shares every other part: toggling one item of
// 100,000 costs a few dozen steps, and the diff of the view skips the rest.

extension LogicMachine {
    /// `{"update": [list, field, key, rule]}`: each object of list whose
    /// field is `===` key replaced by rule's value, with the object as its data.
    mutating func update(_ ins: LogicInstruction, _ scope: LogicScope) throws(LogicStop) -> JSON {
        let operands = list(ins.a, 3)
        let listValue = try eval(operands[operands.startIndex], scope)
        let field = try text(try eval(operands[operands.startIndex + 1], scope))
        let key = try eval(operands[operands.startIndex + 2], scope)
        var items: JSONArray
        switch listValue {
        case .array(let a): items = a
        case .null: return .array([])
        default:
            throw .failure("\"update\" takes a list (or null) first, not \(listValue.kindName)", at: program.locations[Int(ins.c)])
        }
        // What finding the objects read: a step per 16 elements whose keys
        // were read (all of them the first time, a changed path's after).
        var read = 0
        let candidates = items.candidates(field: field, key: key, read: &read)
        try charge(read >> 4)
        var changes: [(Int, JSON)] = []
        for i in candidates {
            try charge(1)
            let item = items[i]
            guard case .object(let o) = item, let value = LogicMachine.member(o, field), try same(value, key) else { continue }
            let changed = try eval(ins.b, .data(item))
            if ins.checked { try checkNesting(changed) }
            changes.append((i, changed))
        }
        for (i, changed) in changes { items[i] = changed }
        return .array(items)
    }
}

// `count`, `length` of a `filter` (the compiler turns one into the other):
// over a big list whose test reads the element only, each node of the
// list's tree keeps its count (JSONArray.count), so that after a change to
// one item the count tests that item's leaf again, not the whole list.

extension LogicMachine {
    mutating func count(_ ins: LogicInstruction, _ list: JSON) throws(LogicStop) -> JSON {
        guard case .array(let items) = list, items.isTree, ins.c == 1 else {
            return try iterate(.count, list, ins.b, checked: ins.checked)
        }
        var stop = LogicStop.budget
        let n = items.count(owner: program, slot: Int(ins.b)) { run -> Int? in
            var n = 0
            do throws(LogicStop) {
                for item in run {
                    try charge(1)
                    if LogicMachine.truthy(try eval(ins.b, .data(item))) { n += 1 }
                }
            } catch {
                stop = error
                return nil
            }
            return n
        }
        guard let n else { throw stop }
        return .int(Int64(n))
    }
}
