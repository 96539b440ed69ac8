// The example scenes as a scene pack, loaded by the demos and tests like any
// user's pack: libyaia.so itself carries no scenes.
import YaiaExamples
import YaiaKit

@_cdecl("yaia_scene_pack_init")
public func yaiaScenePackInit(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    ScenePack.export(name: "examples", version: "0.1.0", Examples.sceneTypes + Examples.childSceneTypes, host: host)
}
