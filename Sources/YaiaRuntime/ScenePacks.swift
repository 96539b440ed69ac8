// Scene packs (Include/yaia_scene.h): shared objects of users' scenes, loaded
// once per process and opened through the runtime's catalog.
import CYaia
import CYaiaScene
import Glibc
import YaiaCore
import YaiaKit

/// A scene type a runtime can open: a Swift type of this process, one of a
/// scene pack's types, or a scene document.
public struct CatalogEntry: Sendable {
    public let name: String
    /// The pack that defines it, or nil for a type of this process.
    public let pack: ScenePackInfo?
    /// The document that defines it, and where that came from.
    public let document: DocumentScene?
    public let origin: DocumentOrigin?
    /// Both take the host's `env` values, which only documents read.
    let open: @Sendable (JSON, JSON) throws(YaiaError) -> any LiveScene
    let restore: @Sendable (JSON, JSON) throws(YaiaError) -> any LiveScene
    /// The invariants a live scene of this type breaks, given the arguments
    /// it was opened with (nil: unknown) and the host's `env`; nil when the
    /// type declares none.
    let invariants: (@Sendable (any LiveScene, JSON?, JSON) throws(YaiaError) -> [InvariantFailure])?
    /// The child slots it declares (the `schema` request).
    let childSlots: [ChildSlot]

    init(_ type: SceneType) {
        name = type.name
        pack = nil
        document = nil
        origin = nil
        childSlots = type.childSlots
        open = { (args, _) throws(YaiaError) in try type.open(args: args) }
        restore = { (state, _) throws(YaiaError) in try type.restore(state: state) }
        if type.hasInvariants {
            invariants = { @Sendable (scene, _, _) in (scene as? SceneValue)?.failingInvariants ?? [] }
        } else {
            invariants = nil
        }
    }

    init(_ type: PackSceneType, pack info: ScenePackInfo) {
        name = type.name
        pack = info
        document = nil
        origin = nil
        childSlots = type.family.slots
        open = { (args, _) throws(YaiaError) in try type.make(args, restoring: false) }
        restore = { (state, _) throws(YaiaError) in try type.make(state, restoring: true) }
        if type.invariants != nil {
            invariants = { @Sendable (live, _, _) throws(YaiaError) in try type.failingInvariants(state: try live.json) }
        } else {
            invariants = nil
        }
    }

    init(_ scene: DocumentScene, origin: DocumentOrigin) {
        name = scene.name
        pack = nil
        document = scene
        self.origin = origin
        childSlots = scene.document.childSlots
        open = { (args, env) throws(YaiaError) in try scene.open(args: args, env: env) }
        restore = { (state, env) throws(YaiaError) in try scene.restore(state: state, env: env) }
        if scene.document.invariantNames.isEmpty {
            invariants = nil
        } else {
            invariants = { @Sendable (live, args, env) throws(YaiaError) in scene.failingInvariants(state: try live.json, args: args, env: env) }
        }
    }

    public func open(args: JSON = [:], env: JSON = [:]) throws(YaiaError) -> any LiveScene { try open(args, env) }
    public func restore(state: JSON, env: JSON = [:]) throws(YaiaError) -> any LiveScene { try restore(state, env) }

    /// Who defines it, for messages.
    var definedBy: String {
        if let origin { return origin.description }
        return pack.map { "pack \"\($0.name)\" (\($0.path))" } ?? "the host"
    }
}

/// The scene types of a runtime, by name: the host's own, its packs' and its documents'.
public struct Catalog: Sendable {
    private var entries: [String: CatalogEntry] = [:]
    /// The names of `entries`, kept as they change: a document is checked
    /// against them without building the set anew for each one.
    private(set) var nameSet: Set<String> = []
    public private(set) var packs: [ScenePackInfo] = []
    /// Document scene types by name, in the order they were added.
    public private(set) var documents: [String] = []

    public init(_ types: SceneCatalog = SceneCatalog()) {
        for name in types.names { if let t = types[name] { entries[name] = CatalogEntry(t) } }
        nameSet = Set(entries.keys)
    }

    public subscript(name: String) -> CatalogEntry? { entries[name] }

    /// Registers a type of this process; a later registration of the same
    /// name replaces it.
    public mutating func register(_ type: SceneType) {
        entries[type.name] = CatalogEntry(type)
        nameSet.insert(type.name)
    }

    public mutating func register<S: SceneState>(_ type: S.Type) { register(SceneType(type)) }

    public var names: [String] { entries.keys.sorted { compareKeys($0, $1) < 0 } }

    /// Adds a pack's types; a name already defined is `duplicate_scene`
    /// naming both definitions, and nothing is added. The documents it
    /// ships are added apart (`add(_:origin:)`), once read.
    public mutating func add(_ pack: LoadedScenePack) throws(YaiaError) {
        for type in pack.types {
            if let other = entries[type.name] {
                throw YaiaError(.duplicateScene, "scene type \"\(type.name)\" is defined by \(other.definedBy) and by pack \"\(pack.info.name)\" (\(pack.info.path))")
            }
        }
        for type in pack.types {
            entries[type.name] = CatalogEntry(type, pack: pack.info)
            nameSet.insert(type.name)
        }
        packs.append(pack.info)
    }

    /// Adds a document's scene type; a name already defined is
    /// `duplicate_scene` naming both definitions.
    public mutating func add(_ scene: DocumentScene, origin: DocumentOrigin) throws(YaiaError) {
        if let other = entries[scene.name] {
            throw YaiaError(.duplicateScene, "scene type \"\(scene.name)\" is defined by \(other.definedBy) and by \(origin.description)")
        }
        entries[scene.name] = CatalogEntry(scene, origin: origin)
        nameSet.insert(scene.name)
        documents.append(scene.name)
    }
}

/// What the runtime tells of a loaded pack.
public struct ScenePackInfo: Sendable, Equatable {
    public let name: String
    public let version: String
    public let path: String
    public let scenes: [String]

    var json: JSON {
        ["name": .string(name), "version": .string(version), "path": .string(path), "scenes": .array(scenes.map(JSON.string))]
    }
}

/// A pack, loaded and checked. Its descriptor lives as long as the process.
public struct LoadedScenePack: Sendable {
    public let info: ScenePackInfo
    let types: [PackSceneType]
    /// The scene documents it ships, as JSON text.
    let documents: [String]
}

/// One of a pack's scene types.
struct PackSceneType: @unchecked Sendable {
    let name: String
    let type: UnsafePointer<yaia_scene_type>
    /// The pack writes canonical view models: they go into answers as written.
    let canonical: Bool
    /// Nil: the type declares no invariants (or ends before the field).
    let invariants: (@convention(c) (UnsafePointer<yaia_scene_type>?, UnsafePointer<CChar>?, Int, OpaquePointer?) -> Int32)?
    /// Nil: the type has no reduce_patch (or ends before the field).
    let reducePatch: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int, OpaquePointer?, OpaquePointer?) -> Int32)?
    /// Its child slots and children() (PackChildren.swift).
    let family: PackFamily

    /// The invariants the state `json` breaks, as the pack names them.
    func failingInvariants(state json: JSON) throws(YaiaError) -> [InvariantFailure] {
        guard let invariants else { return [] }
        let buffer = SceneBuffer()
        var writer = JSONWriter()
        writer.write(json)
        let status = writer.withBytes { raw in
            invariants(type, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count, buffer.handle)
        }
        guard status == 0 else { throw buffer.error(.badState, scene: name) }
        // Whatever cannot be read is an error, never "all hold".
        guard case .array(let names) = try buffer.parse(scene: name, what: "a list of invariants"),
              case let strings = names.compactMap(\.stringValue), strings.count == names.count else {
            throw YaiaError(.scenePackError, "scene \(name) answered with invariants that are not a list of names")
        }
        return strings.map { InvariantFailure.broken($0, scene: name) }
    }

    func make(_ json: JSON, restoring: Bool) throws(YaiaError) -> any LiveScene {
        let buffer = SceneBuffer()
        var writer = JSONWriter()
        writer.write(json)
        let fn = restoring ? type.pointee.restore : type.pointee.open
        let state = writer.withBytes { raw -> OpaquePointer? in
            guard let fn else { return nil }
            return fn(type, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count, buffer.handle)
        }
        guard let state else { throw buffer.error(restoring ? .badState : .badArgs, scene: name) }
        return try LivePackScene(type: self, state: state)
    }
}

/// A host buffer a pack writes text into (`yaia_scene_buffer *`).
final class SceneBuffer {
    var writer: JSONWriter

    init(capacity: Int = 256) { writer = JSONWriter(capacity: capacity) }

    var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    /// The text as JSON; `scene_pack_error` when it is none.
    func parse(scene: String, what: String) throws(YaiaError) -> JSON {
        do throws(YaiaError) {
            return try writer.withBytes { raw in Result { () throws(YaiaError) in try JSONParser.parse(raw.bindMemory(to: UInt8.self)) } }.get()
        } catch {
            throw YaiaError(.scenePackError, "scene \(scene) answered with \(what) that is no JSON: \(error.message)")
        }
    }

    /// The text as JSON, checked but not built; `scene_pack_error` when it is none.
    func check(scene: String, what: String) throws(YaiaError) {
        do throws(YaiaError) {
            try writer.withBytes { raw in Result { () throws(YaiaError) in try JSONParser.check(raw.bindMemory(to: UInt8.self)) } }.get()
        } catch {
            throw YaiaError(.scenePackError, "scene \(scene) answered with \(what) that is no JSON: \(error.message)")
        }
    }

    /// The codes a pack's scene may fail with (yaia_scene.h). The rest of
    /// the stable codes are the runtime's to give: `internal` would blame Yaia.
    static let sceneCodes: Set<String> = ["bad_args", "bad_state", "unknown_action", "bad_payload"]

    /// The error a pack function wrote, as a YaiaError. An error without a
    /// code takes `fallback`; one with a code a scene may not use is
    /// `scene_pack_error`, the pack's code in `pack_code`.
    func error(_ fallback: ErrorCode, scene: String) -> YaiaError {
        defer { writer.reset() }
        guard case .object(let o)? = try? parse(scene: scene, what: "an error"), case .string(let message)? = o["message"] else {
            return YaiaError(.scenePackError, "scene \(scene) failed without a readable error")
        }
        guard let code = o["code"] else { return YaiaError(fallback, message, at: o["at"]?.stringValue) }
        guard case .string(let c) = code, SceneBuffer.sceneCodes.contains(c) else {
            var error = YaiaError(.scenePackError, "scene \(scene) failed with a code no scene may give: \(message)")
            error.packCode = code.stringValue ?? code.serialized()
            return error
        }
        return YaiaError(ErrorCode(rawValue: c), message, at: o["at"]?.stringValue)
    }
}

/// The host table handed to every pack: its write() appends to a SceneBuffer.
nonisolated(unsafe) let hostTable: UnsafeMutablePointer<yaia_scene_host> = {
    let table = UnsafeMutablePointer<yaia_scene_host>.allocate(capacity: 1)
    table.initialize(to: yaia_scene_host(
        size: MemoryLayout<yaia_scene_host>.size, abi_version: YAIA_SCENE_ABI_VERSION, host_version: yaiaVersionCString,
        write: { buffer, bytes, length in
            guard let buffer, let bytes, length > 0 else { return }
            let sink = Unmanaged<SceneBuffer>.fromOpaque(UnsafeRawPointer(buffer)).takeUnretainedValue()
            sink.writer.append(UnsafeRawBufferPointer(start: bytes, count: length))
        }))
    return table
}()

/// A scene whose state lives in a pack. Its functions run under the scene's
/// lock, so the buffers are reused without one of their own.
final class LivePackScene: LiveScene, @unchecked Sendable {
    let type: PackSceneType
    let state: OpaquePointer
    private let out = SceneBuffer()
    /// The view model as of the last reduction (or the opening), kept as
    /// text once checked: a send copies it into its response as it is, and
    /// only other readers parse it.
    let view = SceneBuffer()
    /// What a reduction writes as the view model, taking `view`'s place
    /// once checked: a reduction refused leaves the last one.
    let nextView = SceneBuffer()
    /// An action the runtime writes for the pack (an outcome's, a result's).
    private let input = SceneBuffer(capacity: 64)
    /// Patch mode (PackViewPatches.swift): whether the next reduction is to
    /// give its view model's change, the operations it gave, whether `view`
    /// holds the current view model, and whether the view model the pack
    /// last wrote is the one the host was last sent.
    var patchAsked = false
    var operations: JSON?
    /// The operations of patched reductions refused after the pack made them, owed to the host.
    var owed: JSON?
    var viewIsCurrent = true
    var packMatchesHost = true
    /// The children the pack last wrote and the runtime read: its "the same" (PackChildren.swift).
    var lastChildren: [Child]?

    /// Takes `state`, freed here if its view model cannot be read.
    init(type: PackSceneType, state: OpaquePointer) throws(YaiaError) {
        self.type = type
        self.state = state
        guard let write = type.type.pointee.view_model, write(state, view.handle) == 0 else {
            throw view.error(.scenePackError, scene: type.name)
        }
        try view.check(scene: type.name, what: "a view model")
    }

    deinit { type.type.pointee.free_state?(state) }

    var name: String { type.name }

    /// Calls `body` with the action's text: the caller's, or written anew.
    private func withText<T>(_ sent: SentAction, _ body: (UnsafePointer<CChar>?, Int) -> T) -> T {
        if let text = sent.text {
            return UnsafeRawPointer(text.baseAddress).map { body($0.assumingMemoryBound(to: CChar.self), text.count) } ?? body(nil, 0)
        }
        guard case .value(let action) = sent else { return body(nil, 0) }
        input.writer.reset()
        action.write(into: &input.writer)
        return input.writer.withBytes { raw in body(raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count) }
    }

    func check(_ action: Action) throws(YaiaError) {
        guard let check = type.type.pointee.check else { return }
        out.writer.reset()
        let status = withText(.value(action)) { check(state, $0, $1, out.handle) }
        if status != 0 { throw out.error(.badPayload, scene: name) }
    }

    func reduce(_ action: Action) throws(YaiaError) -> [Command] { try reduce(.value(action), env: { [:] }) }

    /// An action sent as text is handed to the pack as it came: no value is built.
    func reduce(_ sent: SentAction, env: () -> JSON) throws(YaiaError) -> [Command] {
        operations = nil
        let patching = patchAsked && packMatchesHost ? type.reducePatch : nil
        patchAsked = false
        guard let reduce = patching ?? type.type.pointee.reduce else { throw YaiaError(.scenePackError, "scene \(name) has no reduce") }
        out.writer.reset()
        nextView.writer.reset()
        let status = withText(sent) { reduce(state, $0, $1, out.handle, nextView.handle) }
        guard status == 0 else { throw out.error(.badPayload, scene: name) }
        // The pack has reduced: until this succeeds, the view model it last
        // wrote is not the one the host holds.
        packMatchesHost = false
        let commands: [Command]
        do throws(YaiaError) { commands = try readCommands() } catch {
            if patching != nil { owe() }
            throw error
        }
        if patching != nil {
            try takePatch()
        } else {
            owed = nil
            try nextView.check(scene: name, what: "a view model")
            view.writer.exchange(with: &nextView.writer)
            viewIsCurrent = true
        }
        packMatchesHost = true
        return commands
    }

    /// The commands a reduction wrote: an array, nothing else.
    private func readCommands() throws(YaiaError) -> [Command] {
        // Most actions emit nothing: "[]" needs no parse.
        if out.writer.withBytes({ $0.count == 2 && $0[0] == UInt8(ascii: "[") && $0[1] == UInt8(ascii: "]") }) { return [] }
        if let commands = out.writer.withBytes({ Command.list(from: $0.bindMemory(to: UInt8.self)) }) { return commands }
        guard case .array(let list) = try out.parse(scene: name, what: "commands") else {
            throw YaiaError(.scenePackError, "scene \(name) answered with commands that are not an array")
        }
        var commands: [Command] = []
        commands.reserveCapacity(list.count)
        for (i, item) in list.enumerated() {
            do throws(YaiaError) {
                commands.append(try Command(json: item))
            } catch {
                throw YaiaError(.scenePackError, "scene \(name) emitted a command the runtime cannot read: \(error.message)", at: "/\(i)" + (error.at ?? ""))
            }
        }
        return commands
    }

    /// Checked when it was written: it parses.
    var viewModel: JSON {
        refreshView()
        return (try? view.parse(scene: name, what: "a view model")) ?? .null
    }

    func writeViewModel(into writer: inout JSONWriter) {
        guard type.canonical else { return writer.write(viewModel) }
        refreshView()
        view.writer.withBytes { writer.append($0) }
    }

    var json: JSON {
        get throws(YaiaError) { try read(type.type.pointee.state, what: "a state") }
    }

    private func read(_ fn: (@convention(c) (OpaquePointer?, OpaquePointer?) -> Int32)?, what: String) throws(YaiaError) -> JSON {
        guard let fn else { throw YaiaError(.scenePackError, "scene \(name) cannot write \(what)") }
        out.writer.reset()
        guard fn(state, out.handle) == 0 else { throw out.error(.scenePackError, scene: name) }
        return try out.parse(scene: name, what: what)
    }
}

// MARK: loading

/// Packs by real path: each is loaded and initialized once per process.
private let loadedPacks = Lock()
nonisolated(unsafe) private var packsByPath: [String: LoadedScenePack] = [:]

/// Loads the scene pack at `path` (or finds it loaded), checking everything
/// yaia_scene.h asks of it. Nothing is kept from a pack that fails.
public func loadScenePack(path named: String) throws(YaiaError) -> LoadedScenePack {
    try loadScenePack(path: named, files: .host)
}

/// `files` says how the pack's file is opened: as the host's, or beneath a request's grant.
func loadScenePack(path named: String, files: FileAccess) throws(YaiaError) -> LoadedScenePack {
    let found = resolveLibraryPath(named)
    if found == nil, case .host = files {
        throw YaiaError(.scenePackNotFound, "no scene pack at \(searchedPlaces(named))")
    }
    let path = found ?? named
    guard let real = try files.resolve(path) else { throw YaiaError(.scenePackNotFound, "no scene pack at \(placeOf(path))") }
    return try loadedPacks.withLock { () throws(YaiaError) -> LoadedScenePack in
        if let pack = packsByPath[real] { return pack }
        let file = try files.open(real, code: .scenePackNotLoadable, missing: .scenePackNotFound)
        let pack = try openPack(OpenedFile(fd: file.fd, path: path), real: real)
        packsByPath[real] = pack
        return pack
    }
}

private func openPack(_ file: OpenedFile, real: String) throws(YaiaError) -> LoadedScenePack {
    let shown = file.path
    // Never dlclose: states and code of the pack may be in use anywhere.
    let handle = try loadSharedObject(file, code: .scenePackNotLoadable, what: "scene pack")
    guard let symbol = dlsym(handle, YAIA_SCENE_PACK_ENTRY) else {
        throw YaiaError(.scenePackNoEntry, "\(shown) does not export \(YAIA_SCENE_PACK_ENTRY): it is not a scene pack")
    }
    let entry = unsafeBitCast(symbol, to: yaia_scene_pack_init_fn.self)
    return try checkPack(entry(hostTable), path: real, shownAs: shown)
}

/// Checks what a pack's entry point answered, as yaia_scene.h asks.
func checkPack(_ answer: UnsafePointer<yaia_scene_pack>?, path: String, shownAs shown: String) throws(YaiaError) -> LoadedScenePack {
    guard let descriptor = answer else {
        throw YaiaError(.scenePackABIMismatch, "scene pack \(shown) cannot work with this host (scene-pack ABI \(YAIA_SCENE_ABI_VERSION))")
    }
    // Packs built before the documents fields end there.
    let minimum = MemoryLayout<yaia_scene_pack>.offset(of: \yaia_scene_pack.document_count) ?? MemoryLayout<yaia_scene_pack>.size
    guard descriptor.pointee.size >= minimum else {
        // A short struct is a malformed descriptor (yaia_scene.h, docs/packs.md), not another ABI.
        throw YaiaError(.scenePackInvalid, "scene pack \(shown) answered with a descriptor of \(descriptor.pointee.size) bytes; ABI \(YAIA_SCENE_ABI_VERSION) needs \(minimum)")
    }
    let pack = descriptor.pointee
    guard pack.abi_version == YAIA_SCENE_ABI_VERSION else {
        throw YaiaError(.scenePackABIMismatch, "scene pack \(shown) was built for scene-pack ABI version \(pack.abi_version); this host has version \(YAIA_SCENE_ABI_VERSION)")
    }
    guard let rawName = pack.name else { throw YaiaError(.scenePackInvalid, "scene pack \(shown) has no name") }
    let name = String(cString: rawName)
    try LiveService.validate(name: name, what: "scene pack", code: .scenePackInvalid)
    guard pack.scene_count <= 10_000, pack.scene_count == 0 || pack.scenes != nil else {
        throw YaiaError(.scenePackInvalid, "scene pack \(name) lists \(counted(pack.scene_count, "scene")) without a valid list")
    }
    var types: [PackSceneType] = []
    var seen: Set<String> = []
    for i in 0..<pack.scene_count {
        guard let type = pack.scenes?[i] else { throw YaiaError(.scenePackInvalid, "scene pack \(name): scene \(i) is NULL") }
        // Scene types built before the invariants field end there: only the
        // bytes the pack has are read, the fields past them stay zero.
        let size = UnsafeRawPointer(type).load(as: Int.self)
        var t = yaia_scene_type()
        withUnsafeMutableBytes(of: &t) { $0.copyMemory(from: UnsafeRawBufferPointer(start: type, count: Swift.max(0, Swift.min(size, $0.count)))) }
        let needed = MemoryLayout<yaia_scene_type>.offset(of: \yaia_scene_type.invariants) ?? MemoryLayout<yaia_scene_type>.size
        guard t.size >= needed else {
            throw YaiaError(.scenePackInvalid, "scene pack \(name): scene \(i) is \(t.size) bytes; ABI \(YAIA_SCENE_ABI_VERSION) needs \(needed)")
        }
        guard let rawSceneName = t.name, case let sceneName = String(cString: rawSceneName), isValidSceneName(sceneName) else {
            throw YaiaError(.scenePackInvalid, "scene pack \(name): scene \(i) has no valid name (letters, digits and ._-/)")
        }
        guard t.open != nil, t.restore != nil, t.reduce != nil, t.check != nil, t.view_model != nil, t.state != nil, t.free_state != nil else {
            throw YaiaError(.scenePackInvalid, "scene pack \(name): scene \(sceneName) lacks one of its functions")
        }
        guard seen.insert(sceneName).inserted else {
            throw YaiaError(.duplicateScene, "scene type \"\(sceneName)\" is defined twice by pack \"\(name)\" (\(shown))")
        }
        types.append(PackSceneType(name: sceneName, type: type, canonical: t.flags & YAIA_SCENE_CANONICAL != 0, invariants: t.invariants,
                                   reducePatch: t.reduce_patch, family: try PackFamily(t, pack: name, scene: sceneName)))
    }
    var documents: [String] = []
    if descriptor.pointee.size >= MemoryLayout<yaia_scene_pack>.size && pack.document_count > 0 {
        guard pack.document_count <= 10_000, let list = pack.documents else {
            throw YaiaError(.scenePackInvalid, "scene pack \(name) lists \(counted(pack.document_count, "document")) without a valid list")
        }
        for i in 0..<pack.document_count {
            guard let text = list[i] else { throw YaiaError(.scenePackInvalid, "scene pack \(name): document \(i) is NULL") }
            documents.append(String(cString: text))
        }
    }
    let version = pack.version.map { String(cString: $0) } ?? ""
    return LoadedScenePack(info: ScenePackInfo(name: name, version: version, path: path, scenes: types.map(\.name)), types: types,
                           documents: documents)
}
