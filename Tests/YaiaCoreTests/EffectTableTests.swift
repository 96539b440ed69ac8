import Testing
import YaiaCore
import YaiaKit

/// The runtime's effect decisions, with values only: a table, an input and
/// the time read from a clock; expected: the table after and the steps.
@Suite struct EffectTableTests {
    typealias Record = EffectTable.Record

    func effect(_ op: String = "o", key: String? = nil, timeout: Double? = nil, policy: Effect.Policy = .concurrent,
                service: String = "s") -> Effect {
        Effect(service: service, op: op, then: "done", catch: "failed", options: .init(id: key, timeout: timeout, policy: policy))
    }

    let served: (String) -> Bool = { $0 == "s" }

    @Test func servedEffectRunsAndUnservedWaitsForTheHost() {
        var table = EffectTable()
        let (running, steps) = table.admit(effect(), scene: 1, served: true, now: 0)
        #expect(running == Record(id: 1, scene: 1, effect: effect(), status: .running))
        #expect(steps == [.start(1)])
        let (pending, none) = table.admit(effect(service: "host"), scene: 1, served: false, now: 0)
        #expect(pending.status == .pending && pending.id == 2)
        #expect(none.isEmpty)
        #expect(table.nextID == 3)
    }

    @Test func timeoutIsADeadlineFromTheTimeItStarts() {
        var table = EffectTable()
        let (record, steps) = table.admit(effect(timeout: 5), scene: 1, served: true, now: 100)
        #expect(record.deadline == 105)
        #expect(steps == [.arm(1, at: 105), .start(1)])
        #expect(table.due(at: 104.999).isEmpty)
        #expect(table.due(at: 105) == [1])
    }

    @Test func dueListsEarliestFirstAndSkipsQueued() {
        var table = EffectTable()
        _ = table.admit(effect(timeout: 3), scene: 1, served: true, now: 0)
        _ = table.admit(effect(timeout: 1), scene: 1, served: false, now: 0)
        _ = table.admit(effect(key: "k", timeout: 2, policy: .queue), scene: 1, served: true, now: 0)
        _ = table.admit(effect(key: "k", timeout: 0.5, policy: .queue), scene: 1, served: true, now: 0)
        #expect(table[4]?.status == .queued && table[4]?.deadline == nil)
        #expect(table.due(at: 10) == [2, 3, 1])
    }

    @Test func latestCancelsItsPredecessorsFirst() {
        var table = EffectTable()
        _ = table.admit(effect("a", key: "k", policy: .latest), scene: 1, served: true, now: 0)
        _ = table.admit(effect("b", key: "other", policy: .latest), scene: 1, served: true, now: 0)
        _ = table.admit(effect("c", key: "k", policy: .latest), scene: 2, served: true, now: 0)
        let (record, steps) = table.admit(effect("d", key: "k", policy: .latest), scene: 1, served: true, now: 0)
        #expect(steps == [.cancel(1), .start(4)])
        #expect(record.status == .running)
        #expect(table[1] == nil && table[2] != nil && table[3] != nil)
    }

    @Test func queueWaitsAndStartsWhenTheOneBeforeEnds() {
        var table = EffectTable()
        _ = table.admit(effect("a", key: "k", timeout: 10, policy: .queue), scene: 1, served: true, now: 0)
        let (second, waiting) = table.admit(effect("b", key: "k", timeout: 10, policy: .queue), scene: 1, served: true, now: 1)
        #expect(second.status == .queued && waiting.isEmpty)
        // The second's clock starts when it leaves the queue, at 6.
        let ended = table.end(1, served: served, now: 6)
        #expect(ended?.0.id == 1)
        #expect(ended?.1 == [.arm(2, at: 16), .start(2)])
        #expect(table[2]?.status == .running && table[2]?.deadline == 16)
        #expect(table.end(2, served: served, now: 7)?.1 == [])
        #expect(table.records.isEmpty)
    }

    @Test func aQueuedEffectWhoseServiceIsGoneWaitsForTheHost() {
        var table = EffectTable()
        _ = table.admit(effect("a", key: "k", policy: .queue), scene: 1, served: true, now: 0)
        _ = table.admit(effect("b", key: "k", policy: .queue), scene: 1, served: true, now: 0)
        #expect(table.end(1, served: { _ in false }, now: 0)?.1 == [])
        #expect(table[2]?.status == .pending)
    }

    @Test func concurrentEffectsWithOneKeyAllRun() {
        var table = EffectTable()
        #expect(table.admit(effect(key: "k"), scene: 1, served: true, now: 0).1 == [.start(1)])
        #expect(table.admit(effect(key: "k"), scene: 1, served: true, now: 0).1 == [.start(2)])
        #expect(table.cancel(key: "k", scene: 1) == [.cancel(1), .cancel(2)])
        #expect(table.cancel(key: "k", scene: 1) == [])
        #expect(table.records.isEmpty)
    }

    @Test func endingTwiceFindsNothing() {
        var table = EffectTable()
        _ = table.admit(effect(), scene: 1, served: true, now: 0)
        #expect(table.end(1, served: served, now: 0) != nil)
        #expect(table.end(1, served: served, now: 0) == nil)
        #expect(table.issued(1) && !table.issued(2) && !table.issued(0) && !table.issued(-1))
    }

    @Test func closingScenesCancelsTheirEffectsOnly() {
        var table = EffectTable()
        _ = table.admit(effect(key: "k", policy: .queue), scene: 1, served: true, now: 0)
        _ = table.admit(effect(key: "k", policy: .queue), scene: 1, served: true, now: 0)
        _ = table.admit(effect(), scene: 2, served: true, now: 0)
        #expect(table.close(scenes: [1]) == [.cancel(1), .cancel(2)])
        #expect(table.records.keys.sorted() == [3])
        // The key's queue went with the scene: a new one starts at once.
        #expect(table.admit(effect(key: "k", policy: .queue), scene: 1, served: true, now: 0).1 == [.start(4)])
    }

    @Test func directCallsTakeNegativeIdsAndAlwaysHaveADeadline() {
        var table = EffectTable()
        let (call, steps) = table.direct(effect(), timeout: 60, now: 5)
        #expect(call.id == -1 && call.scene == 0 && call.status == .running)
        #expect(steps == [.arm(-1, at: 65), .start(-1)])
        #expect(table.direct(effect(), timeout: 1, now: 0).0.id == -2)
        #expect(table.nextID == 1)
        #expect(table.sceneRecords.isEmpty)
        #expect(table.due(at: 1) == [-2])
    }

    @Test func idsRunOutAtTheMaximum() {
        var table = EffectTable(nextID: 10, maxID: 10)
        #expect(!table.exhausted)
        #expect(table.admit(effect(), scene: 1, served: false, now: 0).0.id == 10)
        #expect(table.exhausted)
    }

    @Test func restoreBringsEffectsBackByTheirOwnPolicy() {
        var table = EffectTable()
        let awaiting = table.restore(EffectTable.Record(id: 7, scene: 1, effect: effect(timeout: 4), status: .pending), as: .await(deadline: true),
                                     served: true, now: 10)
        #expect(awaiting == [.arm(7, at: 14)])
        #expect(table[7]?.status == .pending)
        let replaying = table.restore(EffectTable.Record(id: 8, scene: 1, effect: effect(timeout: 4), status: .pending), as: .await(deadline: false),
                                     served: true, now: 10)
        #expect(replaying == [] && table[8]?.deadline == nil)
        let reissued = table.restore(EffectTable.Record(id: 9, scene: 1, effect: effect(key: "k", policy: .queue), status: .pending), as: .reissue,
                                     served: true, now: 10)
        #expect(reissued == [.start(9)])
        let queued = table.restore(EffectTable.Record(id: 11, scene: 1, effect: effect(key: "k", policy: .queue), status: .queued), as: .reissue,
                                     served: true, now: 10)
        #expect(queued == [] && table[11]?.status == .queued)
        #expect(table.nextID == 12)
        // The queue kept its order: 11 starts when 9 ends.
        #expect(table.end(9, served: served, now: 11)?.1 == [.start(11)])
        #expect(table.removeSceneEffects() == [7, 8, 11])
        #expect(table.records.isEmpty && table.nextID == 12)
    }
}
