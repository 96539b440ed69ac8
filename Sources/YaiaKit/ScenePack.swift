import CYaiaScene
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Turns scene types into a scene pack: the descriptor of Include/yaia_scene.h
/// that a runtime loads. A pack's one entry point is:
///
/// ```swift
/// @_cdecl("yaia_scene_pack_init")
/// public func yaiaScenePackInit(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
///     ScenePack.export(name: "notes", [LoginState.self, ListState.self], host: host)
/// }
/// ```
///
/// Each state lives here, in the pack, as its Swift value; the host holds an
/// opaque pointer to it. Only JSON text crosses: the action in, the commands
/// and the view model out, and the state when the host asks for it.
public enum ScenePack {
    /// The descriptor for `types`, built on the first call and the same
    /// pointer on every later one (a pack is initialized once per process).
    /// Returns nil when `host` is not a host table this pack can use.
    public static func export(name: String, version: String? = nil, _ types: [any SceneState.Type],
                              host: UnsafeRawPointer?) -> UnsafeRawPointer? {
        export(name: name, version: version, types.map { SceneType(opening: $0) }, documents: [], host: host)
    }

    /// `export`, with scene documents (docs/scene-documents.md), as JSON
    /// text, that the pack ships beside its Swift scenes.
    public static func export(name: String, version: String? = nil, _ types: [any SceneState.Type],
                              documents: [String], host: UnsafeRawPointer?) -> UnsafeRawPointer? {
        export(name: name, version: version, types.map { SceneType(opening: $0) }, documents: documents, host: host)
    }

    /// `export` for erased scene types.
    public static func export(name: String, version: String? = nil, _ types: [SceneType],
                              host: UnsafeRawPointer?) -> UnsafeRawPointer? {
        export(name: name, version: version, types, documents: [], host: host)
    }

    /// `export` for erased scene types, with scene documents.
    public static func export(name: String, version: String? = nil, _ types: [SceneType],
                              documents: [String], host: UnsafeRawPointer?) -> UnsafeRawPointer? {
        guard let host else { return nil }
        let table = host.assumingMemoryBound(to: yaia_scene_host.self)
        // The host's write() is the last field this pack reads.
        let needed = MemoryLayout<yaia_scene_host>.offset(of: \yaia_scene_host.write).map { $0 + MemoryLayout<Int>.size } ?? Int.max
        guard table.pointee.size >= needed, let write = table.pointee.write else { return nil }
        let address = exported.withLock { cached -> UInt in
            if let cached { return cached }
            let built = UInt(bitPattern: makeDescriptor(name: name, version: version, types: types, documents: documents, write: write))
            cached = built
            return built
        }
        return UnsafeRawPointer(bitPattern: address)
    }

    /// The descriptor's address once built; it is never freed.
    private static let exported = Mutex<UInt?>(nil)

    static func makeDescriptor(name: String, version: String?, types: [SceneType], documents: [String],
                                       write: @escaping HostWrite) -> UnsafeMutablePointer<yaia_scene_pack> {
        let list = UnsafeMutablePointer<UnsafePointer<yaia_scene_type>?>.allocate(capacity: max(types.count, 1))
        for (i, type) in types.enumerated() {
            let context = Unmanaged.passRetained(PackedType(type, write: write)).toOpaque()
            // Only a type with slots answers children().
            let slots = type.childSlots.isEmpty ? nil : UnsafePointer(strdup(ChildSlot.json(type.childSlots).serialized()))
            let entry = UnsafeMutablePointer<yaia_scene_type>.allocate(capacity: 1)
            entry.initialize(to: yaia_scene_type(
                size: MemoryLayout<yaia_scene_type>.size, name: strdup(type.name), context: context,
                open: packOpen, restore: packRestore, reduce: packReduce, check: packCheck,
                view_model: packViewModel, state: packState, free_state: packFree,
                // YaiaKit's writer is the runtime's: its text is canonical.
                flags: YAIA_SCENE_CANONICAL, invariants: type.hasInvariants ? packInvariants : nil,
                reduce_patch: packReducePatch, child_slots: slots, children: slots == nil ? nil : packChildren))
            list[i] = UnsafePointer(entry)
        }
        let texts = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: Swift.max(documents.count, 1))
        for (i, text) in documents.enumerated() { texts[i] = UnsafePointer(strdup(text)) }
        let descriptor = UnsafeMutablePointer<yaia_scene_pack>.allocate(capacity: 1)
        descriptor.initialize(to: yaia_scene_pack(
            size: MemoryLayout<yaia_scene_pack>.size, abi_version: YAIA_SCENE_ABI_VERSION,
            name: strdup(name), version: version.map { UnsafePointer(strdup($0)) },
            scene_count: types.count, scenes: UnsafePointer(list),
            document_count: documents.count, documents: UnsafePointer(texts)))
        return descriptor
    }
}

extension SceneType {
    /// Opens the existential: `SceneType(S.self)` for the dynamic type.
    init(opening type: any SceneState.Type) {
        func make<S: SceneState>(_ t: S.Type) -> SceneType { SceneType(t) }
        self = make(type)
    }
}

typealias HostWrite = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int) -> Void

/// A scene type with the host's write function, behind `yaia_scene_type.context`.
private final class PackedType: @unchecked Sendable {
    let type: SceneType
    let write: HostWrite

    init(_ type: SceneType, write: @escaping HostWrite) {
        self.type = type
        self.write = write
    }
}

/// One live state, behind a `yaia_scene_state *`. The host never calls two
/// functions on one state at once, so the writer is reused without a lock,
/// and the dynamic exclusivity checks (a runtime call per access, in every
/// pack built without the Makefile's flag) would only cost time.
private final class PackedState {
    @exclusivity(unchecked) var value: SceneValue
    let write: HostWrite
    @exclusivity(unchecked) var writer = JSONWriter(capacity: 512)
    /// The view model last written for this state, which reduce_patch's
    /// operations start from. Sharing its storage with the next one where
    /// nothing changed, it makes the diff cost what changed.
    @exclusivity(unchecked) var lastView: JSON?
    /// The children last written for this state: a list equal to it is
    /// answered as "the same", without a text (Array's == is O(1) on one
    /// buffer, and cheap element by element on shared storage).
    @exclusivity(unchecked) var lastChildren: [Child]?

    init(_ value: SceneValue, write: @escaping HostWrite) {
        self.value = value
        self.write = write
    }

    /// Hands what the writer holds to the host buffer, then empties the writer.
    func flush(to buffer: OpaquePointer?) {
        let write = self.write
        writer.withBytes { raw in write(buffer, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count) }
        writer.reset()
    }

    /// Writes the view model into `buffer`, remembered as the last written.
    func writeView(to buffer: OpaquePointer?) {
        let view = value.viewModel
        writer.write(view)
        flush(to: buffer)
        lastView = view
    }

    /// Reduces the action in `bytes` and writes its commands into `out`;
    /// false with the error written when the scene refuses it.
    func reduce(_ bytes: UnsafePointer<CChar>?, _ length: Int, out: OpaquePointer?) -> Bool {
        let commands: [Command]
        do throws(YaiaError) {
            commands = try value.reduce(try action(bytes, length))
        } catch {
            _ = fail(error, into: out)
            return false
        }
        writer.raw("[")
        for (i, command) in commands.enumerated() {
            if i > 0 { writer.raw(",") }
            command.write(into: &writer)
        }
        writer.raw("]")
        flush(to: out)
        return true
    }

    func fail(_ error: YaiaError, into buffer: OpaquePointer?) -> Int32 {
        writer.reset()
        writer.write(error.json)
        flush(to: buffer)
        return 1
    }
}

private func buffer(_ bytes: UnsafePointer<CChar>?, _ length: Int) throws(YaiaError) -> UnsafeBufferPointer<UInt8> {
    guard let bytes, length >= 0 else { throw YaiaError(.invalidJSON, "no text") }
    return UnsafeBufferPointer(start: UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: length)
}

private func text(_ bytes: UnsafePointer<CChar>?, _ length: Int) throws(YaiaError) -> JSON {
    try JSONParser.parse(try buffer(bytes, length))
}

private func action(_ bytes: UnsafePointer<CChar>?, _ length: Int) throws(YaiaError) -> Action {
    try Action(parsing: try buffer(bytes, length))
}

private func packed(_ type: UnsafePointer<yaia_scene_type>?) -> PackedType? {
    guard let context = type?.pointee.context else { return nil }
    return Unmanaged<PackedType>.fromOpaque(context).takeUnretainedValue()
}

private func packed(_ state: OpaquePointer?) -> PackedState? {
    guard let state else { return nil }
    return Unmanaged<PackedState>.fromOpaque(UnsafeRawPointer(state)).takeUnretainedValue()
}

/// open() and restore(): a new state, or NULL with the error written.
private func make(_ type: UnsafePointer<yaia_scene_type>?, _ bytes: UnsafePointer<CChar>?, _ length: Int,
                  _ errorBuffer: OpaquePointer?, restoring: Bool) -> OpaquePointer? {
    guard let packed = packed(type) else { return nil }
    do throws(YaiaError) {
        let json = try text(bytes, length)
        let value = restoring ? try packed.type.restore(state: json) : try packed.type.open(args: json)
        let state = PackedState(value, write: packed.write)
        return OpaquePointer(Unmanaged.passRetained(state).toOpaque())
    } catch {
        var writer = JSONWriter()
        writer.write(error.json)
        let write = packed.write
        writer.withBytes { raw in write(errorBuffer, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count) }
        return nil
    }
}

private let packOpen: @convention(c) (UnsafePointer<yaia_scene_type>?, UnsafePointer<CChar>?, Int, OpaquePointer?) -> OpaquePointer? = {
    make($0, $1, $2, $3, restoring: false)
}

private let packRestore: @convention(c) (UnsafePointer<yaia_scene_type>?, UnsafePointer<CChar>?, Int, OpaquePointer?) -> OpaquePointer? = {
    make($0, $1, $2, $3, restoring: true)
}

private let packReduce: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int, OpaquePointer?, OpaquePointer?) -> Int32 = {
    state, bytes, length, out, viewModel in
    guard let s = packed(state) else { return 1 }
    guard s.reduce(bytes, length, out: out) else { return 1 }
    s.writeView(to: viewModel)
    return 0
}

/// reduce(), answering the view model as the operations from the last one
/// written: a diff that stops where both share storage, so a view model
/// whose unchanged parts are kept (KeyedList rows) costs what changed.
private let packReducePatch: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int, OpaquePointer?, OpaquePointer?) -> Int32 = {
    state, bytes, length, out, patch in
    guard let s = packed(state) else { return 1 }
    guard s.reduce(bytes, length, out: out) else { return 1 }
    let view = s.value.viewModel
    let operations: [JSONPatch.Operation]
    if let last = s.lastView {
        operations = JSONPatch.diff(from: last, to: view)
    } else {
        operations = [.replace(path: "", value: view)]
    }
    s.writer.write(JSONPatch.json(operations))
    s.flush(to: patch)
    s.lastView = view
    return 0
}

private let packCheck: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int, OpaquePointer?) -> Int32 = {
    state, bytes, length, errorBuffer in
    guard let s = packed(state) else { return 1 }
    do throws(YaiaError) {
        try s.value.check(try action(bytes, length))
        return 0
    } catch {
        return s.fail(error, into: errorBuffer)
    }
}

private let packViewModel: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32 = { state, out in
    guard let s = packed(state) else { return 1 }
    s.writeView(to: out)
    return 0
}

private let packState: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32 = { state, out in
    guard let s = packed(state) else { return 1 }
    s.writer.write(s.value.json)
    s.flush(to: out)
    return 0
}

private let packInvariants: @convention(c) (UnsafePointer<yaia_scene_type>?, UnsafePointer<CChar>?, Int, OpaquePointer?) -> Int32 = {
    type, bytes, length, out in
    guard let packed = packed(type) else { return 1 }
    var writer = JSONWriter()
    do throws(YaiaError) {
        let failures = try packed.type.failingInvariants(state: try text(bytes, length))
        writer.write(.array(failures.map { .string($0.name) }))
    } catch {
        writer.write(error.json)
        writer.withBytes { raw in packed.write(out, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count) }
        return 1
    }
    writer.withBytes { raw in packed.write(out, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count) }
    return 0
}

private let packChildren: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32 = { state, out in
    guard let s = packed(state) else { return 1 }
    do throws(YaiaError) {
        let children = try s.value.children()
        if let last = s.lastChildren, last == children { return YAIA_SCENE_SAME_CHILDREN }
        s.writer.write(.array(children.map(\.json)))
        s.flush(to: out)
        s.lastChildren = children
        return 0
    } catch {
        s.lastChildren = nil
        return s.fail(error, into: out)
    }
}

private let packFree: @convention(c) (OpaquePointer?) -> Void = { state in
    guard let state else { return }
    Unmanaged<PackedState>.fromOpaque(UnsafeRawPointer(state)).release()
}
