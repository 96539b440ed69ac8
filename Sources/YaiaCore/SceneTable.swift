/// The open scenes of a runtime state, by id: a value (copying a state
/// copies its scenes, on the first change after), whose scenes are reduced
/// in place, without moving a scene's state in or out of a table.
public struct SceneTable: Sendable {
    final class Box: @unchecked Sendable {
        var scene: RuntimeState.OpenScene
        init(_ scene: RuntimeState.OpenScene) { self.scene = scene }
    }

    final class Storage: @unchecked Sendable {
        var boxes: [Int64: Box] = [:]

        func copy() -> Storage {
            let other = Storage()
            for (id, box) in boxes { other.boxes[id] = Box(box.scene) }
            return other
        }
    }

    private var storage = Storage()

    public init() {}

    public init(_ scenes: [Int64: RuntimeState.OpenScene]) {
        for (id, scene) in scenes { storage.boxes[id] = Box(scene) }
    }

    public subscript(id: Int64) -> RuntimeState.OpenScene? {
        get { storage.boxes[id]?.scene }
        set {
            unique()
            storage.boxes[id] = newValue.map(Box.init)
        }
    }

    public var count: Int { storage.boxes.count }
    public var isEmpty: Bool { storage.boxes.isEmpty }
    /// The scenes, in id order.
    public var values: [RuntimeState.OpenScene] { storage.boxes.values.map(\.scene).sorted { $0.id < $1.id } }

    public func contains(_ id: Int64) -> Bool { storage.boxes[id] != nil }

    /// Runs `body` on scene `id` in place; nil when there is none.
    mutating func modify<R>(_ id: Int64, _ body: (inout RuntimeState.OpenScene) throws(YaiaError) -> R) throws(YaiaError) -> R? {
        unique()
        guard let box = storage.boxes[id] else { return nil }
        return try body(&box.scene)
    }

    /// Writes scene `id`'s view model as the scene writes it; null when there is none.
    public func writeViewModel(of id: Int64, into writer: inout JSONWriter) {
        guard let box = storage.boxes[id] else { return writer.write(.null) }
        box.scene.value.writeViewModel(into: &writer)
    }

    mutating func removeAll() {
        unique()
        storage.boxes.removeAll()
    }

    private mutating func unique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }
}
