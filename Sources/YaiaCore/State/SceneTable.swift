import YaiaKit

/// The open scenes of a runtime state, by id: a value (copying a state
/// copies its scenes, on the first change after), whose scenes are reduced
/// in place, without moving a scene's state in or out of a table.
public struct SceneTable: Sendable {
    final class Box: @unchecked Sendable {
        var scene: RuntimeState.OpenScene
        init(_ scene: RuntimeState.OpenScene) { self.scene = scene }
    }

    final class Storage: @unchecked Sendable {
        private(set) var boxes = IDMap<Box>()

        func copy() -> Storage {
            let other = Storage()
            for (id, box) in boxes { other.set(id, box.scene) }
            return other
        }

        func set(_ id: Int64, _ scene: RuntimeState.OpenScene?) {
            boxes[id] = scene.map(Box.init)
        }

        func removeAll() {
            boxes.removeAll()
        }
    }

    private var storage = Storage()

    public init() {}

    public init(_ scenes: [Int64: RuntimeState.OpenScene]) {
        for (id, scene) in scenes { storage.set(id, scene) }
    }

    public subscript(id: Int64) -> RuntimeState.OpenScene? {
        get { storage.boxes[id]?.scene }
        set {
            unique()
            storage.set(id, newValue)
        }
    }

    public var count: Int { storage.boxes.count }
    public var isEmpty: Bool { storage.boxes.isEmpty }
    /// The scenes, in id order.
    public var values: [RuntimeState.OpenScene] { storage.boxes.values.map(\.scene).sorted { $0.id < $1.id } }

    public func contains(_ id: Int64) -> Bool { storage.boxes[id] != nil }

    /// The seq of scene `id` when it is a child with no slots of its own (a
    /// row), read in place: a parent's view of 10,000 rows asks it of each,
    /// where copying each scene out would retain everything it holds.
    func rowSeq(_ id: Int64) -> Int64? {
        guard let box = storage.boxes[id], box.scene.link != nil, box.scene.slots.isEmpty else { return nil }
        return box.scene.seq
    }

    /// The parent of scene `id`, read in place.
    func parent(of id: Int64) -> Int64? { storage.boxes[id]?.scene.link?.parent }

    /// Runs `body` on scene `id` in place; `missing` when there is none.
    /// Its result (an update, on every send) comes back as it is, not as an
    /// optional to unwrap.
    mutating func modify<R>(_ id: Int64, missing: () -> YaiaError,
                            _ body: (inout RuntimeState.OpenScene) throws(YaiaError) -> R) throws(YaiaError) -> R {
        unique()
        guard let box = storage.boxes[id] else { throw missing() }
        return try body(&box.scene)
    }

    /// Writes scene `id`'s view model as the scene writes it, or `closed`'s
    /// (the scene as reduced, when its own route closed it); null when there is none.
    public func writeViewModel(of id: Int64, closed: RuntimeState.OpenScene?, into writer: inout JSONWriter) {
        if let closed { return closed.value.writeViewModel(into: &writer) }
        guard let box = storage.boxes[id] else { return writer.write(.null) }
        box.scene.value.writeViewModel(into: &writer)
    }

    mutating func removeAll() {
        unique()
        storage.removeAll()
    }

    private mutating func unique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }
}
