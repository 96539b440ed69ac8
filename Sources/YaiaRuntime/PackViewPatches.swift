import YaiaCore
import YaiaKit

// Patch mode for pack scenes whose type has reduce_patch (yaia_scene.h): the
// pack gives the operations from the view model it last wrote, and the
// runtime passes them on, checked, instead of reading the whole view model
// and diffing it.

extension LivePackScene {
    func patchNextReduction() { patchAsked = true }

    func takeViewPatch() -> JSON? {
        defer { operations = nil }
        return operations
    }

    /// The operations reduce_patch wrote: a JSON array of operations within
    /// the limits patches are applied with, else `scene_pack_error`.
    func readPatch(_ buffer: SceneBuffer) throws(YaiaError) -> JSON {
        let json = try buffer.parse(scene: name, what: "a view patch")
        do throws(YaiaError) {
            _ = try JSONPatch.operations(json)
        } catch {
            throw YaiaError(.scenePackError, "scene \(name) answered with a view patch that is no list of operations: \(error.message)")
        }
        return json
    }

    /// The operations a patched reduction wrote, after those owed.
    func takePatch() throws(YaiaError) {
        let ops = try readPatch(nextView)
        viewIsCurrent = false
        if case .array(var all)? = owed.take(), case .array(let new) = ops {
            all.append(contentsOf: new)
            operations = .array(all)
        } else {
            operations = ops
        }
    }

    /// A patched reduction was refused after the pack reduced: its
    /// operations, readable, are owed to the host and go first in the next
    /// patch (operations apply in order); unreadable, the next reduction
    /// writes the whole view model, diffed by the runtime.
    func owe() {
        guard let ops = try? readPatch(nextView), case .array(let new) = ops else { return }
        if case .array(var all)? = owed {
            all.append(contentsOf: new)
            owed = .array(all)
        } else {
            owed = ops
        }
        packMatchesHost = true
        viewIsCurrent = false
    }

    /// After a reduction that gave a patch, `view` is written again when read.
    func refreshView() {
        guard !viewIsCurrent else { return }
        view.writer.reset()
        guard let write = type.type.pointee.view_model, write(state, view.handle) == 0,
              (try? view.check(scene: name, what: "a view model")) != nil else {
            view.writer.reset()
            view.writer.raw("null")
            return
        }
        viewIsCurrent = true
    }

}
