import YaiaKit

/// The steps an evaluation may take (docs/logic.md, "Budget"): a base, the
/// runtime's "logic_steps" limit, that any rule may spend; and, once the base
/// is spent, a share that follows the size of the data the rule was given,
/// so that passes over a big list fit where a runaway (work that grows
/// faster than the data: nested passes, values doubled, long ranges built)
/// still stops. Several rules may share one budget, as a scene document's
/// reduction does: the data's share is then added once.
public struct LogicBudget: Sendable, Equatable {
    /// The base when none is given (the default "logic_steps").
    public static let defaultBase = 100_000
    /// The largest base a runtime's config may set.
    public static let maxBase = 1 << 40
    /// Steps the data's share gives per unit of data.
    public static let defaultPerUnit = 16
    /// Units of data counted at most, what about 32 MB of JSON text holds:
    /// the data's share, and so what a state can grow to, stays bounded.
    public static let maxDataUnits = 4_000_000

    /// Steps any evaluation may take.
    public var base: Int
    /// Steps per unit of the data (a value, or 8 bytes of a string); 0 for
    /// a budget of `base` steps whatever the data.
    public var perUnit: Int
    /// Steps left.
    public internal(set) var left: Int
    /// The data's units counted so far (nil until the base ran out): as
    /// many as the steps taken needed, all of them once `counted`.
    public internal(set) var dataUnits: Int?
    /// Whether `dataUnits` holds the whole data (or `maxDataUnits`).
    public internal(set) var counted = false
    /// How deeply the last result evaluated within this budget nests, as
    /// measuring its size found (so that nobody walks it again to know).
    public var resultDepth = 0

    public init(base: Int = LogicBudget.defaultBase, perUnit: Int = LogicBudget.defaultPerUnit) {
        self.base = base
        self.perUnit = perUnit
        left = base
    }

    /// The data's share, once counted.
    var share: Int {
        guard let dataUnits else { return 0 }
        let (product, overflow) = dataUnits.multipliedReportingOverflow(by: Swift.max(perUnit, 0))
        return overflow ? Int.max : product
    }

    /// Every step this budget allows, as far as it knows the data.
    public var total: Int {
        let (sum, overflow) = base.addingReportingOverflow(share)
        return overflow ? Int.max : sum
    }

    /// The largest result, in walk units, an evaluation may return: what the
    /// base pays for, or twice the data. A value shared many times over
    /// (read from the data again and again) is counted as written out, so
    /// that no state or view model grows past what a host can be sent.
    var resultUnits: Int {
        let (fromBase, overflow) = base.multipliedReportingOverflow(by: 16)
        return Swift.max(overflow ? Int.max : fromBase, 2 * (dataUnits ?? 0))
    }

    /// Adds (more of) the share of `data` when the steps run out: true when
    /// it added any. The data is counted only as far as the steps taken
    /// need, at least twice as far as before, so that it is walked about
    /// twice over at most, and a pass over a small part of a big state does
    /// not walk all of it; `whole` counts all of it.
    mutating func overdraw(_ data: JSON, whole: Bool = false) -> Bool {
        guard !counted, perUnit > 0 else { return false }
        let before = dataUnits ?? 0
        let deficit = left < 0 ? -(left / perUnit) + 1 : 1
        let wanted = whole ? LogicBudget.maxDataUnits : Swift.max(2 * before, deficit, 4096)
        let limit = Swift.min(wanted, LogicBudget.maxDataUnits)
        var units = 0
        let walked = LogicMachine.walk(data, levels: Int.max, units: &units, limit: limit)
        counted = walked != .tooBig || limit == LogicBudget.maxDataUnits
        let found = Swift.min(units, limit)
        dataUnits = found
        let (added, overflow) = (found - before).multipliedReportingOverflow(by: perUnit)
        let (sum, overflow2) = left.addingReportingOverflow(overflow ? Int.max : added)
        left = overflow2 ? Int.max : sum
        return found > before || counted
    }

    /// What `logic_budget_exceeded` says: the budget, and how to raise it.
    var exceeded: String {
        var message = "the expression took more than its budget of \(YaiaKit.counted(total, "step"))"
        if let dataUnits, perUnit > 0 {
            message += ": \(base) (the \"logic_steps\" limit) and \(perUnit) for each of the \(dataUnits) units of the data it reads (a unit: a value, or 8 bytes of a string)"
        } else {
            message += " (the \"logic_steps\" limit)"
        }
        let raised = total > LogicBudget.maxBase / 2 ? LogicBudget.maxBase : total * 2
        return message + "; an expression that is no runaway can have more: the runtime's config raises the limit, {\"limits\": {\"logic_steps\": \(raised)}}"
    }
}
