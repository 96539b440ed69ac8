// A pack's child scenes (Include/yaia_scene.h, `child_slots` and
// `children`): the slots a scene type declares, read once when the pack
// loads, and the children a live state wants, asked after each reduction.
import CYaiaScene
import YaiaKit

/// A pack scene type's child slots and its children() function.
struct PackFamily: @unchecked Sendable {
    let slots: [ChildSlot]
    let children: (@convention(c) (OpaquePointer?, OpaquePointer?) -> Int32)?

    /// Reads `type`'s slots, checked whole: `scene_pack_invalid` naming
    /// every problem with its pointer. A type that ends before the fields
    /// has them zeroed by the loader: no slots.
    init(_ type: yaia_scene_type, pack: String, scene: String) throws(YaiaError) {
        guard let text = type.child_slots else {
            slots = []
            children = nil
            return
        }
        let problems: [ChildSlot.Problem]
        do throws(YaiaError) {
            let read = ChildSlot.read(try JSONParser.parse(String(cString: text)))
            problems = read.problems + read.slots.filter { !isValidSceneName($0.scene) && !$0.scene.isEmpty }.map {
                ChildSlot.Problem(at: JSONPointer.appending(JSONPointer.appending("", $0.name), "scene"),
                                  message: "\"\($0.scene)\" is no scene type's name (letters, digits and ._-/)")
            }
            slots = read.slots
        } catch {
            throw YaiaError(.scenePackInvalid, "scene pack \(pack): scene \(scene) declares child slots that are no JSON: \(error.message)")
        }
        guard problems.isEmpty else {
            throw YaiaError(.scenePackInvalid, "scene pack \(pack): scene \(scene) declares child slots with \(counted(problems.count, "problem")): "
                            + problems.map(\.description).joined(separator: "; "))
        }
        guard slots.isEmpty || type.children != nil else {
            throw YaiaError(.scenePackInvalid, "scene pack \(pack): scene \(scene) declares child slots and no children()")
        }
        children = slots.isEmpty ? nil : type.children
    }
}

extension LivePackScene {
    var childSlots: [ChildSlot] { type.family.slots }

    /// What the pack's children() writes, read as yaia_scene.h says:
    /// anything else is `scene_pack_error`, and no child changes. "The
    /// same as my last answer" gives the very array read then, which the
    /// reconciliation knows at once as the list it already has.
    func children() throws(YaiaError) -> [Child] {
        guard let children = type.family.children else { return [] }
        let buffer = SceneBuffer()
        let answer = children(state, buffer.handle)
        let written = buffer.writer.withBytes { $0.count } > 0
        if answer == YAIA_SCENE_SAME_CHILDREN && !written {
            guard let lastChildren else {
                throw YaiaError(.scenePackError, "scene \(name) answered the same children as its last answer, and has none the runtime read")
            }
            return lastChildren
        }
        // Until the pack writes a list that reads, it has none to repeat.
        lastChildren = nil
        guard answer == 0 else { throw buffer.error(.scenePackError, scene: name) }
        guard case .array(let list) = try buffer.parse(scene: name, what: "children") else {
            throw YaiaError(.scenePackError, "scene \(name) answered with children that are not an array")
        }
        var wanted: [Child] = []
        wanted.reserveCapacity(list.count)
        for (i, item) in list.enumerated() {
            do throws(YaiaError) {
                wanted.append(try Child(json: item, at: "/\(i)"))
            } catch {
                throw YaiaError(.scenePackError, "scene \(name) answered with a child the runtime cannot read: \(error.message)", at: error.at)
            }
        }
        lastChildren = wanted
        return wanted
    }
}
