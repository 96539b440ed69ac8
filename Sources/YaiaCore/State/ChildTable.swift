import YaiaKit

/// Where a child scene sits: its parent, its slot and its key (null but in
/// a keyed slot). A class: a scene without a parent carries one word for it.
public final class ChildLink: Sendable {
    public let parent: Int64
    public let slot: String
    public let key: JSON
    /// Its place below the scene without a parent, made once: a child keeps
    /// its parent, and so its path, for its life; an update carries it.
    let place: Update.Place

    /// Whether its slot is keyed: only a keyed slot's children have a key.
    var keyed: Bool { key != .null }

    /// `above`: the parent's own link, nil when the parent has no parent.
    init(parent: Int64, slot: String, key: JSON, above: ChildLink?) {
        self.parent = parent
        self.slot = slot
        self.key = key
        var path = above?.place.path.arrayValue?.elements ?? []
        path.append(.string(slot))
        if key != .null { path.append(key) }
        place = Update.Place(top: above?.place.top ?? parent, path: .array(path), viewAt: nil)
    }
}

/// The children of a parent's slot, in the order its state lists them.
struct SlotChildren: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var key: JSON
        var id: Int64
        /// The args it was opened with or last given: a change is sent to it.
        var args: JSON
    }

    private(set) var entries: [Entry] = []
    /// Keys to their place in `entries`.
    private var places: [JSON: Int] = [:]

    mutating func append(_ entry: Entry) {
        places[entry.key] = entries.count
        entries.append(entry)
    }

    func position(of key: JSON) -> Int? { places[key] }
    func entry(_ key: JSON) -> Entry? { places[key].map { entries[$0] } }
}

/// The children of the scenes that have any, by parent id, slot by slot.
/// Empty in a runtime without children: a send checks only that.
struct ChildTable: Sendable {
    typealias Slots = [String: SlotChildren]
    private(set) var parents = IDMap<Slots>()
    /// The list each parent's state wanted when its children were last
    /// reconciled without a problem: the same list again changes nothing,
    /// so reconciling it is skipped. Set by `reconciled`, dropped by any
    /// other change to the parent's children.
    private(set) var lastWanted = IDMap<[Child]>()

    var isEmpty: Bool { parents.isEmpty }

    subscript(parent: Int64) -> Slots? {
        get { parents[parent] }
        set {
            parents[parent] = newValue.flatMap { $0.isEmpty ? nil : $0 }
            lastWanted[parent] = nil
        }
    }

    /// Sets `parent`'s children as a reconciliation of `wanted` left them.
    mutating func reconciled(_ parent: Int64, _ slots: Slots, wanted: [Child]?) {
        self[parent] = slots
        lastWanted[parent] = wanted
    }

    /// The child of `parent` at `slot` and `key`, if any.
    func child(of parent: Int64, slot: String, key: JSON) -> Int64? {
        parents[parent]?[slot]?.entry(key)?.id
    }

    mutating func removeAll() {
        parents.removeAll()
        lastWanted.removeAll()
    }

    // MARK: in a snapshot

    /// A parent's children as a snapshot holds them: `{SLOT: [{"key"?, "scene", "args"}]}`.
    static func json(_ slots: Slots) -> JSON {
        var o = JSONObject()
        for name in slots.keys.sorted() {
            guard let list = slots[name] else { continue }
            o[name] = .array(list.entries.map { e in
                var item: JSONObject = ["scene": .int(e.id), "args": e.args]
                if e.key != .null { item["key"] = e.key }
                return .object(item)
            })
        }
        return .object(o)
    }

    /// Reads a parent's children from a snapshot: checked against the
    /// parent's slots and the snapshot's scenes (`bad_snapshot`).
    static func read(_ json: JSON, of parent: RuntimeState.OpenScene, scenes: [Int64: RuntimeState.OpenScene]) throws(YaiaError) -> Slots {
        let at = "scene \(parent.id)'s children"
        guard case .object(let o) = json else { throw YaiaError(.badSnapshot, "\(at) are an object of slots") }
        var slots = Slots()
        for (name, value) in o {
            guard let slot = parent.slots.first(where: { $0.name == name }) else {
                throw YaiaError(.badSnapshot, "\(at): \(parent.value.name) has no child slot \"\(name)\"")
            }
            guard case .array(let items) = value, slot.kind == .keyed || items.count <= 1 else {
                throw YaiaError(.badSnapshot, "\(at): slot \"\(name)\" is a list of at most \(slot.kind == .keyed ? "any number of" : "one") child")
            }
            var list = SlotChildren()
            for item in items {
                guard case .int(let id)? = item["scene"], let child = scenes[id], child.value.name == slot.scene, child.flow == nil,
                      let args = item["args"] else {
                    throw YaiaError(.badSnapshot, "\(at): a child of slot \"\(name)\" is {\"key\"?, \"scene\", \"args\"}, its scene one of the snapshot's of type \(slot.scene) and in no flow")
                }
                let key = slot.kind == .keyed ? item["key"] ?? .null : .null
                guard slot.kind != .keyed || ChildMessage.isKey(key), list.position(of: key) == nil else {
                    throw YaiaError(.badSnapshot, "\(at): slot \"\(name)\" has a child without a key, or twice the same key")
                }
                list.append(.init(key: key, id: id, args: args))
            }
            if !list.entries.isEmpty { slots[name] = list }
        }
        return slots
    }
}

extension RuntimeState {
    /// Links a snapshot's children to their parents, checked whole: each
    /// child has one parent, no flow, and a chain of parents no deeper than
    /// `depthLimit` (so no cycle), or `bad_snapshot`.
    static func link(_ scenes: inout [Int64: OpenScene], children: [Int64: JSON], depthLimit: Int) throws(YaiaError) {
        for (parent, json) in children.sorted(by: { $0.key < $1.key }) {
            guard let scene = scenes[parent] else {
                throw YaiaError(.badSnapshot, "scene \(parent) has children and is not in the snapshot")
            }
            for (name, list) in try ChildTable.read(json, of: scene, scenes: scenes) {
                for entry in list.entries {
                    guard scenes[entry.id]?.link == nil else {
                        throw YaiaError(.badSnapshot, "scene \(entry.id) is the child of more than one place")
                    }
                    // Placed below once every link is known (and checked), below.
                    scenes[entry.id]?.link = ChildLink(parent: parent, slot: name, key: entry.key, above: nil)
                }
            }
        }
        var depths: [(id: Int64, depth: Int)] = []
        for id in scenes.keys {
            var depth = 0
            var link = scenes[id]?.link
            while let l = link {
                depth += 1
                guard depth <= depthLimit, l.parent != id else {
                    throw YaiaError(.badSnapshot, "scene \(id)'s parents nest more than \(depthLimit) levels, or round in a circle")
                }
                link = scenes[l.parent]?.link
            }
            if depth > 0 { depths.append((id, depth)) }
        }
        // Parents first, so that each child is placed below its parent's place.
        for (id, _) in depths.sorted(by: { ($0.depth, $0.id) < ($1.depth, $1.id) }) {
            guard let l = scenes[id]?.link else { continue }
            let above = scenes[l.parent]?.link
            scenes[id]?.link = ChildLink(parent: l.parent, slot: l.slot, key: l.key, above: above)
        }
    }
}

extension RuntimeState {
    /// The args child scene `id` was opened with or last given; nil for a
    /// scene without a parent. What its invariants read as `args`.
    package func childArgs(of id: Int64) -> JSON? {
        guard let link = scenes[id]?.link else { return nil }
        return children[link.parent]?[link.slot]?.entry(link.key)?.args
    }

    /// Every scene below scene `top`, parents before their children, each
    /// with its scene type and its path from `top` (the path a send takes).
    package func descendants(of top: Int64) -> [(id: Int64, type: String, path: [JSON])] {
        guard !children.isEmpty else { return [] }
        return withDescendants([top]).dropFirst().compactMap { id in
            guard let scene = scenes[id], let place = place(of: id), place.top == top, case .array(let path) = place.path else { return nil }
            return (id, scene.value.name, path.elements)
        }
    }
}
