// libnotes.so: the notes scenes as a scene pack. This is its one export; a
// runtime loads it with {"scenes": [".../libnotes.so"]}.
import Notes
import YaiaKit

@_cdecl("yaia_scene_pack_init")
public func yaiaScenePackInit(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    ScenePack.export(name: "notes", version: "1.0.0", [LoginState.self, ListState.self, RowState.self, EditorState.self], host: host)
}
