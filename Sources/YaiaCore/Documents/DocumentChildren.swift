import YaiaKit

// A document's child slots (docs/composition.md): read and checked, every
// problem at once, and the children its state wants, evaluated.

/// A child slot of a document, with the expressions that fill it.
struct DocumentChild: Sendable {
    var slot: ChildSlot
    /// optional: the value a child is present for (while not null); keyed: the list of items.
    var from: Template?
    /// keyed: an item's key; by default its `id`.
    var key: Template?
    /// The child's open args; by default `{}`.
    var args: Template?
}

extension DocumentReader {
    static let childMembers = ["scene", "kind", "from", "key", "args", "outputs", "intercept", "argsAction", "description"]
    static let childRoots: Set<String> = ["state"]
    static let itemRoots: Set<String> = ["state", "item"]

    /// `children`: slot name -> `{scene, kind, from?, key?, args?, outputs?, intercept?, argsAction?}`.
    mutating func children(_ json: JSON) -> [DocumentChild] {
        guard let o = object(json, "\"children\"", at: "/children") else { return [] }
        var list: [DocumentChild] = []
        for (name, value) in o {
            let at = JSONPointer.appending("/children", name)
            if name.isEmpty || name.contains("/") { problem(.badValue, "a slot's name is not empty and has no \"/\"", at: at) }
            if fields.contains(name) { problem(.badValue, "\"\(name)\" names a state field too: the slot's children's view models take that member of the view model", at: at) }
            guard let given = object(value, "a child slot", at: at) else { continue }
            let d = members(of: given, "a child slot", known: Self.childMembers, required: ["scene", "kind"], at: at)
            describe(d, at: at)
            var scene = ""
            if let s = d["scene"], let n = self.name(s, "\"scene\"", at: JSONPointer.appending(at, "scene")) {
                scene = n
                if let catalog, n != sceneName, !catalog.contains(n) {
                    problem(.unknownScene, "no scene type named \"\(n)\"" + Suggestion.hint(n, among: catalog.sorted()), at: JSONPointer.appending(at, "scene"))
                }
            }
            var kind = ChildSlot.Kind.one
            if let k = d["kind"] {
                if case .string(let s) = k, let known = ChildSlot.Kind(rawValue: s) { kind = known } else {
                    problem(.badValue, "\"kind\" is \"one\", \"optional\" or \"keyed\"", at: JSONPointer.appending(at, "kind"))
                }
            }
            var child = DocumentChild(slot: ChildSlot(name, scene: scene, kind: kind))
            switch (kind, d["from"]) {
            case (.one, let f?):
                _ = f
                problem(.unknownMember, "a slot of kind one has no \"from\": its child is always there", at: JSONPointer.appending(at, "from"))
            case (.optional, nil), (.keyed, nil):
                problem(.missingMember, "a slot of kind \(kind.rawValue) needs \"from\"", at: at)
            case (_, let f?):
                child.from = template(f, at: JSONPointer.appending(at, "from"), roots: Self.childRoots)
            default: break
            }
            if let k = d["key"] {
                if kind == .keyed { child.key = template(k, at: JSONPointer.appending(at, "key"), roots: Self.itemRoots) } else {
                    problem(.unknownMember, "only a keyed slot has a \"key\"", at: JSONPointer.appending(at, "key"))
                }
            }
            if let a = d["args"] { child.args = template(a, at: JSONPointer.appending(at, "args"), roots: kind == .one ? Self.childRoots : Self.itemRoots) }
            if let outputs = object(d["outputs"], "\"outputs\"", at: JSONPointer.appending(at, "outputs")) {
                for (output, target) in outputs {
                    let p = JSONPointer.appending(JSONPointer.appending(at, "outputs"), output)
                    if let action = declaredAction(target, at: p) { child.slot.outputs[output] = action }
                }
            }
            if let i = d["intercept"] {
                if case .bool(let b) = i { child.slot.intercept = b } else {
                    problem(.wrongType, "\"intercept\" must be a boolean, not \(i.kindName)", at: JSONPointer.appending(at, "intercept"))
                }
                if child.slot.intercept && !actionNames.contains(child.slot.willSend) {
                    problem(.unknownAction, "a slot that intercepts needs the action \"\(child.slot.willSend)\"", at: JSONPointer.appending(at, "intercept"))
                }
            }
            // The child's action, not this document's: the child may be any scene type, so only its name is checked here.
            if let a = d["argsAction"] { child.slot.argsAction = self.name(a, "\"argsAction\" (an action of the child)", at: JSONPointer.appending(at, "argsAction")) }
            list.append(child)
        }
        return list
    }

    /// The name of one of the document's actions.
    private mutating func declaredAction(_ json: JSON, at pointer: String) -> String? {
        guard let action = name(json, "an action's name", at: pointer) else { return nil }
        guard actionNames.contains(action) else {
            problem(.unknownAction, "no action \"\(action)\" in this document" + Suggestion.hint(action, among: actionNames), at: pointer)
            return nil
        }
        return action
    }
}

extension SceneDocument {
    /// The slots the document declares, without their expressions.
    public var childSlots: [ChildSlot] { storage.children.map(\.slot) }
}

extension DocumentChild {
    /// What the slot evaluates: its list or value, and each item's key and args.
    var templates: [Template] { [from, key, args].compactMap { $0 } }
}

extension DocumentSceneValue {
    public var childSlots: [ChildSlot] { scene.document.childSlots }

    /// The children the state wants, as evaluated when the state last changed.
    public func children() throws(YaiaError) -> [Child] { try wanted.get() }

    /// The children of `state`, which follows `previous` whose children were
    /// `last`: while every field the slots read is the very value it was,
    /// `last` itself. A search typed beside 10,000 rows then neither
    /// evaluates nor compares them: the runtime finds the same array.
    static func children(of state: JSONObject, scene: DocumentScene, after previous: JSONObject,
                         last: Result<[Child], YaiaError>) -> Result<[Child], YaiaError> {
        if let fields = scene.childInputs, fields.allSatisfy({ identical(state[$0], previous[$0]) }) { return last }
        return children(of: state, scene: scene)
    }

    /// The children `state` wants: each slot's expressions evaluated over
    /// the state (and, for `key` and `args`, the item), each item within a budget of its own.
    static func children(of state: JSONObject, scene: DocumentScene) -> Result<[Child], YaiaError> {
        Result { () throws(YaiaError) -> [Child] in
            var wanted: [Child] = []
            for child in scene.document.storage.children {
                let name = child.slot.name
                var steps = scene.steps
                let data: JSON = ["state": .object(state)]
                switch child.slot.kind {
                case .one:
                    wanted.append(Child.one(name, args: try child.args?.evaluate(data, &steps) ?? [:]))
                case .optional:
                    let value = try child.from?.evaluate(data, &steps) ?? .null
                    guard value != .null else { continue }
                    wanted.append(Child.one(name, args: try child.args?.evaluate(["state": .object(state), "item": value], &steps) ?? [:]))
                case .keyed:
                    let value = try child.from?.evaluate(data, &steps) ?? .null
                    guard case .array(let items) = value else {
                        throw YaiaError(.documentFailed, "\(scene.name): the children of \"\(name)\" come from \(value.kindName), not a list")
                    }
                    for item in items {
                        var itemSteps = scene.steps
                        let itemData: JSON = ["state": .object(state), "item": item]
                        let key = try child.key?.evaluate(itemData, &itemSteps) ?? item["id"] ?? .null
                        wanted.append(Child(slot: name, key: key, args: try child.args?.evaluate(itemData, &itemSteps) ?? [:]))
                    }
                }
            }
            return wanted
        }
    }
}
