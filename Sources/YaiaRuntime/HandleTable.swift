/// Slots of a handle table: a handle's index has 28 bits.
private let handleCapacity = 1 << 28

private struct HandleSlot {
    var handle: UInt
    var object: AnyObject?
}

/// Objects handed to C as opaque handles: a handle is an id with a tag in its
/// low bits, never an address, so a freed, foreign or made-up one is simply
/// not found instead of being dereferenced.
///
/// A handle is a slot's index and the slot's generation, so a lookup is an
/// array read (host API functions take one per call): bits 0-3 the tag,
/// 4-31 the index, 32-63 the generation, which moves on each time the slot
/// is reused, so a stale handle stays stale for 2^32 reuses of its slot.
public final class HandleTable<Object: AnyObject & Sendable>: @unchecked Sendable {
    private let lock = Lock()
    /// Not generic: code outside this module then reads it without
    /// instantiating generic types on each lookup.
    private var slots: [HandleSlot] = []
    private var vacant: [Int] = []
    private let tag: UInt

    /// `tag` (1 to 15) tells kinds of handles apart.
    public init(tag: UInt) { self.tag = tag }

    /// A new handle for `object`; nil with 2^28 objects in the table.
    public func insert(_ object: Object) -> UInt? {
        lock.withLock {
            if let index = vacant.popLast() {
                let generation = (slots[index].handle >> 32 &+ 1) & 0xFFFF_FFFF
                let handle = generation << 32 | UInt(index) << 4 | tag
                slots[index] = HandleSlot(handle: handle, object: object)
                return handle
            }
            guard slots.count < handleCapacity else { return nil }
            let handle = UInt(slots.count) << 4 | tag
            slots.append(HandleSlot(handle: handle, object: object))
            return handle
        }
    }

    private func index(_ handle: UInt) -> Int? {
        guard handle & 0xF == tag else { return nil }
        let index = Int(handle >> 4 & UInt(handleCapacity - 1))
        return index < slots.count && slots[index].handle == handle ? index : nil
    }

    public func get(_ handle: UInt) -> Object? {
        lock.withLock {
            guard let i = index(handle), let object = slots[i].object else { return nil }
            return unsafeDowncast(object, to: Object.self)  // only Objects are stored
        }
    }

    @discardableResult
    public func remove(_ handle: UInt) -> Object? {
        lock.withLock {
            guard let index = index(handle), let object = slots[index].object else { return nil }
            slots[index].object = nil
            vacant.append(index)
            return unsafeDowncast(object, to: Object.self)
        }
    }
}
