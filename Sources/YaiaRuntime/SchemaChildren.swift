// The `schema` request's "children": the slots a scene type declares, each
// with the interface of the scene type that fills it (docs/composition.md).
import YaiaCore
import YaiaKit

extension Runtime {
    /// `{SLOT: {"scene", "kind", "intercept", "outputs", "argsAction"?, "child"}}`.
    static func childSchemas(_ slots: [ChildSlot], in catalog: Catalog) -> JSON {
        var o = JSONObject()
        for slot in slots {
            guard case .object(var member) = slot.json else { continue }
            member["child"] = childInterface(catalog[slot.scene])
            o[slot.name] = .object(member)
        }
        return .object(o)
    }

    /// What a parent can send a child and hear from it: `{"declared": true,
    /// "actions", "outputs"}`, the action types a document takes and the
    /// output types its branches say; `{"declared": false}` for a Swift or
    /// pack scene, which declares neither; null for no scene type of the catalog.
    static func childInterface(_ entry: CatalogEntry?) -> JSON {
        guard let entry else { return .null }
        guard let document = entry.document?.document else { return ["declared": false] }
        let alternatives = document.schema["$defs"]?["action"]?["oneOf"]?.arrayValue?.elements ?? []
        let actions = alternatives.compactMap { $0["properties"]?["type"]?["const"] }
        var outputs: [String] = []
        for (_, body) in document.json["actions"]?.objectValue ?? [:] {
            let branches: [JSON]
            switch body {
            case .array(let list): branches = list.elements
            case .object(let o): branches = o["branches"]?.arrayValue?.elements ?? [body]
            default: branches = []
            }
            for case .string(let type)? in branches.map({ $0["output"]?["type"] }) where !outputs.contains(type) { outputs.append(type) }
        }
        return ["declared": true, "actions": .array(actions), "outputs": .array(outputs.map(JSON.string))]
    }
}
