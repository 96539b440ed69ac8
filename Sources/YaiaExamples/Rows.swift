import YaiaKit

/// A list whose rows are child scenes (`example/row`), one per item id: the
/// list holds the items; each row its own editing. A renamed row tells the
/// list (an output), which keeps its items' titles; opening a row is an
/// output the list records (docs/composition.md).
public struct RowsState: SceneState {
    public static let name = "example/rows"

    public struct Item: Sendable, Equatable {
        public var id: Int64
        public var title: String
    }

    public var items: [Item]
    public var opened: Int64?

    public static var childSlots: [ChildSlot] {
        [ChildSlot("rows", scene: RowState.name, kind: .keyed, outputs: ["open": "rowOpened", "renamed": "rowRenamed"], argsAction: "setArgs")]
    }

    public var children: [Child] {
        items.map { Child.keyed("rows", key: $0.id, args: ["id": .int($0.id), "title": .string($0.title)]) }
    }

    public enum Action: SceneAction, Equatable {
        case add(id: Int64, title: String)
        case remove(Int64)
        case retitle(id: Int64, title: String)
        case rowOpened(Int64)
        case rowRenamed(id: Int64, title: String)

        public init(_ action: YaiaKit.Action) throws(YaiaError) {
            switch action.type {
            case "add", "retitle":
                let item = try RowsState.item(action.objectPayload(), at: "/payload")
                self = action.type == "add" ? .add(id: item.id, title: item.title) : .retitle(id: item.id, title: item.title)
            case "remove":
                guard case .int(let id)? = action.payload else { throw YaiaError(.badPayload, "remove takes an item id", at: "/payload") }
                self = .remove(id)
            case "rowOpened":
                guard case .int(let key)? = try action.objectPayload()["key"] else {
                    throw YaiaError(.badPayload, "rowOpened needs the row's \"key\"", at: "/payload/key")
                }
                self = .rowOpened(key)
            case "rowRenamed":
                guard case .object(let output)? = try action.objectPayload()["output"] else {
                    throw YaiaError(.badPayload, "rowRenamed needs the row's \"output\"", at: "/payload/output")
                }
                let item = try RowsState.item(output, at: "/payload/output")
                self = .rowRenamed(id: item.id, title: item.title)
            default: throw action.unknown
            }
        }
    }

    static func item(_ o: JSONObject, at pointer: String) throws(YaiaError) -> Item {
        Item(id: try o.integer("id", code: .badPayload, under: pointer), title: try o.string("title", code: .badPayload, under: pointer))
    }

    /// Its own part; the runtime adds the rows' view models as "rows".
    public var viewModel: JSON {
        ["count": .int(Int64(items.count)), "opened": opened.map(JSON.int) ?? .null]
    }

    /// `{"items": [{"id", "title"}]}`; by default three items.
    public init(args: JSON) throws(YaiaError) {
        guard case .object(let o) = args else { throw YaiaError(.badArgs, "example/rows takes {\"items\"?}") }
        guard let given = o["items"] else {
            items = [Item(id: 1, title: "Milk"), Item(id: 2, title: "Eggs"), Item(id: 3, title: "Bread")]
            return
        }
        guard case .array(let list) = given else { throw YaiaError(.badArgs, "\"items\" is a list of {\"id\", \"title\"}", at: "/items") }
        items = []
        for (i, item) in list.enumerated() {
            guard case .object(let io) = item else { throw YaiaError(.badArgs, "an item is {\"id\", \"title\"}", at: "/items/\(i)") }
            items.append(Item(id: try io.integer("id", code: .badArgs, under: "/items/\(i)"), title: try io.string("title", code: .badArgs, under: "/items/\(i)")))
        }
    }

    public init(json: JSON) throws(YaiaError) {
        guard case .object(let o) = json, case .array(let list)? = o["items"] else { throw YaiaError(.badState, "a rows state has \"items\"") }
        items = []
        for item in list {
            guard case .object(let io) = item else { throw YaiaError(.badState, "an item is {\"id\", \"title\"}") }
            items.append(Item(id: try io.integer("id"), title: try io.string("title")))
        }
        if case .int(let id)? = o["opened"] { opened = id }
    }

    public var json: JSON {
        ["items": .array(items.map { ["id": .int($0.id), "title": .string($0.title)] }), "opened": opened.map(JSON.int) ?? .null]
    }

    public mutating func reduce(_ action: Action) -> [Command] {
        switch action {
        case .add(let id, let title):
            if !items.contains(where: { $0.id == id }) { items.append(Item(id: id, title: title)) }
        case .remove(let id):
            items.removeAll { $0.id == id }
        case .retitle(let id, let title), .rowRenamed(let id, let title):
            if let i = items.firstIndex(where: { $0.id == id }) { items[i].title = title }
        case .rowOpened(let id):
            opened = id
        }
        return []
    }
}

extension Examples {
    /// Scene types made of child scenes, in the examples pack beside `sceneTypes`.
    public static let childSceneTypes: [SceneType] = [SceneType(RowsState.self), SceneType(RowState.self)]
}
