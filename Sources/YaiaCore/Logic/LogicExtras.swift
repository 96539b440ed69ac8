import YaiaKit

// The scene extras: operators that refuse values JavaScript would coerce.

extension LogicMachine {
    mutating func extra(_ op: LogicOp, _ args: [JSON], at: String, checked: Bool) throws(LogicStop) -> JSON {
        func fail(_ message: String) -> LogicStop { .failure(message, at: at) }
        func list(_ name: String) throws(LogicStop) -> [JSON] {
            switch args[0] {
            case .array(let items):
                try charge(items.count >> 4)
                return items.elements
            case .null: return []
            default: throw fail("\"\(name)\" takes a list (or null) first, not \(args[0].kindName)")
            }
        }
        // The list itself, for an operator that changes a few elements: the
        // result shares the rest with it (JSONArray), and costs what changed.
        func shared(_ name: String) throws(LogicStop) -> JSONArray {
            switch args[0] {
            case .array(let items): return items
            case .null: return []
            default: throw fail("\"\(name)\" takes a list (or null) first, not \(args[0].kindName)")
            }
        }
        switch op {
        case .length:
            switch args[0] {
            case .string(let s):
                try charge(s.utf8.count >> 7)
                return .int(Int64(s.unicodeScalars.count))
            case .array(let a): return .int(Int64(a.count))
            case .object(let o): return .int(Int64(o.count))
            case .null: return 0
            default: throw fail("\"length\" takes a string, a list or an object, not \(args[0].kindName)")
            }
        case .join:
            let items = try list("join")
            let separator = args.count > 1 ? try text(args[1]) : ","
            var out = ""
            for (i, x) in items.enumerated() {
                if i > 0 { out += separator }
                try appendText(x, to: &out)
            }
            try charge(out.utf8.count >> 7)
            return .string(out)
        case .append:
            var items = try shared("append")
            if checked { try checkNesting(args[1]) }
            try charge(1)
            items.append(args[1])
            return .array(items)
        case .remove:
            var items = try shared("remove")
            try charge(1)
            guard let index = args[1].int64Value else {
                throw fail("\"remove\" takes a whole number as its index, not \(args[1].kindName)")
            }
            let i = index < 0 ? Int64(items.count) + index : index
            guard i >= 0, i < items.count else { return .array(items) }
            items.remove(at: Int(i))
            return .array(items)
        case .without:
            let field = try text(args[1])
            var items = try shared("without")
            try charge(items.count >> 4)
            var gone: [Int] = []
            for (i, item) in items.enumerated() {
                if case .object(let o) = item, let value = LogicMachine.member(o, field), try same(value, args[2]) { gone.append(i) }
            }
            for i in gone.reversed() { items.remove(at: i) }
            return .array(items)
        case .replaceById:
            var items = try shared("replaceById")
            guard case .object(let replacement) = args[1], let id = replacement["id"] else {
                throw fail("\"replaceById\" takes an object with an \"id\" as its second argument, not \(args[1].kindName)")
            }
            if checked { try checkNesting(args[1]) }
            try charge(items.count >> 4)
            var found: [Int] = []
            for (i, item) in items.enumerated() {
                if case .object(let o) = item, let other = LogicMachine.member(o, "id"), try same(other, id) { found.append(i) }
            }
            for i in found { items[i] = args[1] }
            return .array(items)
        case .set:
            var object: JSONObject
            switch args[0] {
            case .object(let o):
                try charge(o.count >> 4)
                object = o
            case .null: object = JSONObject()
            default: throw fail("\"set\" takes an object (or null) first, not \(args[0].kindName)")
            }
            if checked { try checkNesting(args[2]) }
            object[try text(args[1])] = args[2]
            return .object(object)
        default:
            return .null
        }
    }
}
