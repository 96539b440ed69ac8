import Synchronization

// What a KeyedList remembers of its last changes, so that a part derived
// from it is brought up to date by those changes instead of computed again.
//
// Every change gives the list a new stamp, unique in the process. A derived
// part is kept with the stamp of the list it was computed from; the list at
// hand finds that stamp among its own last ones when it is a later version
// of that list, and then knows exactly which changes lie between them. A
// list from another branch of changes, or too many changes later, finds no
// stamp: the part is computed again. Either way the part is the same: what
// is remembered changes only the cost.

/// One change to a list, by position.
@usableFromInline
enum KeyedListChange<Element: Sendable>: Sendable {
    case insert(at: Int, Element)
    case remove(at: Int, Element)
    case replace(at: Int, old: Element, new: Element)
}

@usableFromInline
struct KeyedListHistory<Element: Sendable>: Sendable {
    /// Changes kept, at most; the oldest half goes when there are more.
    @inlinable
    static var limit: Int { 64 }

    /// The list's current stamp.
    @usableFromInline var stamp: UInt64
    /// `stamps[i]`: the stamp before `changes[i]`; the last one is `stamp`.
    @usableFromInline var stamps: [UInt64]
    @usableFromInline var changes: [KeyedListChange<Element>] = []
    /// The derived parts, shared by every version of the list.
    @usableFromInline let memo: KeyedListMemo

    @inlinable
    init() {
        stamp = nextListStamp()
        stamps = [stamp]
        memo = KeyedListMemo()
    }

    @inlinable
    mutating func record(_ change: KeyedListChange<Element>) {
        stamp = nextListStamp()
        changes.append(change)
        stamps.append(stamp)
        if changes.count > Self.limit {
            changes.removeFirst(Self.limit / 2)
            stamps.removeFirst(Self.limit / 2)
        }
    }

    /// The changes from the version stamped `earlier` to this one; nil when
    /// this list is not a known later version of it.
    @inlinable
    func changes(since earlier: UInt64) -> ArraySlice<KeyedListChange<Element>>? {
        guard let i = stamps.lastIndex(of: earlier) else { return nil }
        return changes[i...]
    }
}

private let listStamps = Atomic<UInt64>(0)

@usableFromInline
func nextListStamp() -> UInt64 {
    listStamps.wrappingAdd(1, ordering: .relaxed).newValue
}

/// The parts derived from the versions of one list, each with the stamp
/// of the version it was computed for. A part is taken out while it is
/// brought up to date (so that, held nowhere else, it is changed in place)
/// and put back after; two threads at once at worst compute it twice.
@usableFromInline
final class KeyedListMemo: Sendable {
    @usableFromInline
    struct Part: @unchecked Sendable {
        // Unchecked: the key is a Row type's identity, a key path or a
        // slot's name, all immutable; the value is a JSON array, a count or
        // an array of children.
        @usableFromInline let key: AnyHashable
        @usableFromInline let stamp: UInt64
        @usableFromInline let value: any Sendable

        @usableFromInline
        init(key: AnyHashable, stamp: UInt64, value: any Sendable) {
            self.key = key
            self.stamp = stamp
            self.value = value
        }
    }

    private let parts = Mutex<[Part]>([])

    @usableFromInline
    init() {}

    @usableFromInline
    func take(_ key: AnyHashable) -> Part? {
        parts.withLock { parts -> Part? in
            guard let i = parts.firstIndex(where: { $0.key == key }) else { return nil }
            return parts.remove(at: i)
        }
    }

    @usableFromInline
    func put(_ part: Part) {
        parts.withLock { parts in
            if let i = parts.firstIndex(where: { $0.key == part.key }) { parts[i] = part } else { parts.append(part) }
        }
    }
}

extension KeyedList {
    /// A part derived from the list: `build` computes it from the whole
    /// list, `apply` brings it up to date by one change. Kept under `key`
    /// for the next version of the list.
    @inlinable
    func derived<Value: Sendable>(_ key: AnyHashable, build: () -> Value,
                                  apply: (inout Value, KeyedListChange<Element>) -> Void) -> Value {
        var earlier: Value?
        var changes: ArraySlice<KeyedListChange<Element>> = []
        if let part = history.memo.take(key), let since = history.changes(since: part.stamp) {
            earlier = part.value as? Value
            changes = since
        }
        var value: Value
        if var known = earlier.take() {
            for change in changes { apply(&known, change) }
            value = known
        } else {
            value = build()
        }
        history.memo.put(KeyedListMemo.Part(key: key, stamp: history.stamp, value: value))
        return value
    }
}
