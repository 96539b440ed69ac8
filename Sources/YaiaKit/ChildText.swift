// Child slots and children as JSON text, the forms that cross the scene-pack
// boundary (Include/yaia_scene.h, `child_slots` and `children`): written by
// a Swift pack's glue, read by the runtime's loader, here both.

extension ChildSlot {
    static let members: Set<String> = ["scene", "kind", "intercept", "outputs", "argsAction"]

    /// What is wrong with slots a pack declares, and where.
    package struct Problem: Sendable, Equatable {
        package let at: String
        package let message: String

        package init(at: String, message: String) {
            self.at = at
            self.message = message
        }

        package var description: String { (at.isEmpty ? "" : at + ": ") + message }
    }

    /// Slots as a pack declares them: `{NAME: {"scene", "kind", "intercept", "outputs", "argsAction"?}}`.
    public static func json(_ slots: [ChildSlot]) -> JSON {
        .object(JSONObject(slots.map { ($0.name, $0.json) }))
    }

    /// Reads what `json(_:)` writes, or a C pack's equivalent: the slots,
    /// and every problem at once, each with its pointer (`/rows/kind`).
    package static func read(_ json: JSON) -> (slots: [ChildSlot], problems: [Problem]) {
        guard case .object(let o) = json else {
            return ([], [Problem(at: "", message: "child slots are an object, slot name -> slot, not \(json.kindName)")])
        }
        var slots: [ChildSlot] = []
        var problems: [Problem] = []
        for (name, value) in o {
            let at = JSONPointer.appending("", name)
            if name.isEmpty || name.contains("/") { problems.append(Problem(at: at, message: "a slot's name is not empty and has no \"/\"")) }
            guard case .object(let slot) = value else {
                problems.append(Problem(at: at, message: "a slot is an object, not \(value.kindName)"))
                continue
            }
            for (member, _) in slot where !members.contains(member) {
                problems.append(Problem(at: JSONPointer.appending(at, member), message: "a slot has no member \"\(member)\""))
            }
            let scene = slot["scene"]?.stringValue ?? ""
            if scene.isEmpty {
                problems.append(Problem(at: JSONPointer.appending(at, "scene"), message: "a slot needs \"scene\", a scene type's name"))
            }
            let kind = slot["kind"]?.stringValue.flatMap(Kind.init(rawValue:))
            if kind == nil {
                problems.append(Problem(at: JSONPointer.appending(at, "kind"), message: "a slot's \"kind\" is \"one\", \"optional\" or \"keyed\""))
            }
            var read = ChildSlot(name, scene: scene, kind: kind ?? .one)
            switch slot["intercept"] {
            case nil: break
            case .bool(let b)?: read.intercept = b
            case let other?: problems.append(Problem(at: JSONPointer.appending(at, "intercept"), message: "\"intercept\" is a boolean, not \(other.kindName)"))
            }
            switch slot["outputs"] {
            case nil: break
            case .object(let outputs)?:
                for (output, target) in outputs {
                    guard case .string(let action) = target, !action.isEmpty else {
                        problems.append(Problem(at: JSONPointer.appending(JSONPointer.appending(at, "outputs"), output),
                                                message: "an output maps to an action type, a string"))
                        continue
                    }
                    read.outputs[output] = action
                }
            case let other?: problems.append(Problem(at: JSONPointer.appending(at, "outputs"), message: "\"outputs\" is an object, not \(other.kindName)"))
            }
            switch slot["argsAction"] {
            case nil: break
            case .string(let action)? where !action.isEmpty: read.argsAction = action
            case .some: problems.append(Problem(at: JSONPointer.appending(at, "argsAction"), message: "\"argsAction\" is an action type, a string"))
            }
            slots.append(read)
        }
        return (slots, problems)
    }
}

extension Child {
    /// `{"slot", "key"?, "args"}`: one element of what a pack's `children` writes.
    public var json: JSON {
        var o: JSONObject = ["slot": .string(slot), "args": args]
        if key != .null { o["key"] = key }
        return .object(o)
    }

    /// Reads what `json` writes; `key` and `args` may be left out (null, `{}`).
    /// Whether the slot, key and args fit the scene's slots is the runtime's
    /// to check, as for any scene's children.
    package init(json: JSON, at pointer: String) throws(YaiaError) {
        guard case .object(let o) = json, case .string(let slot)? = o["slot"] else {
            throw YaiaError(.scenePackError, "a child is an object with a string \"slot\"", at: pointer)
        }
        for (member, _) in o where member != "slot" && member != "key" && member != "args" {
            throw YaiaError(.scenePackError, "a child has no member \"\(member)\"", at: JSONPointer.appending(pointer, member))
        }
        self.init(slot: slot, key: o["key"] ?? .null, args: o["args"] ?? [:])
    }
}
