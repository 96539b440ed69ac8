import CYaia
import Glibc
import YaiaCore
import YaiaKit

/// What a runtime knows of a loaded plugin.
public struct PluginInfo: Sendable, Equatable {
    public let name: String
    public let version: String
    public let path: String
    public let abi: UInt32
    public let services: [String]

    var json: JSON {
        ["name": .string(name), "version": .string(version), "path": .string(path), "abi": .int(Int64(abi)),
         "services": .array(services.map(JSON.string))]
    }
}

/// The plugin ABI versions this host offers, ascending.
let offeredABIVersions: [UInt32] = [1]

/// One plugin's setup() in progress: what `yaia_host *` points at (as a handle).
final class LivePluginLoad: @unchecked Sendable {
    let pluginName: String
    let lock = Lock()
    var active = true
    var staged: [LiveService] = []
    var error: String?
    /// A registration refused during setup fails the whole load.
    var refusal: YaiaError?
    let taken: Set<String>
    /// The plugin's config, read through setup_config().
    let config: CallData

    init(pluginName: String, taken: Set<String>, config: JSON) {
        self.pluginName = pluginName
        self.taken = taken
        self.config = CallData(op: "", args: config, mayBlock: false, limits: Limits())
    }

    func setError(_ message: String) {
        lock.withLock { if active { error = message } }
    }

    /// setup() returned: nothing more is registered.
    func end() -> (staged: [LiveService], error: String?, refusal: YaiaError?) {
        lock.withLock {
            active = false
            return (staged, error, refusal)
        }
    }

    /// Registers a service made during setup(); a refusal fails the whole load.
    func stage(_ make: () throws(YaiaError) -> LiveService) -> Int32 {
        lock.withLock { () -> Int32 in
            guard active else { return YAIA_ERR_STATE }
            do throws(YaiaError) {
                let entry = try make()
                if taken.contains(entry.name) || staged.contains(where: { $0.name == entry.name }) {
                    refusal = refusal ?? YaiaError(.duplicateService, "plugin \(pluginName) registers service \"\(entry.name)\", which is already registered")
                    return YAIA_ERR_EXISTS
                }
                staged.append(entry)
                return YAIA_OK
            } catch {
                refusal = refusal ?? YaiaError(error.code, "plugin \(pluginName): \(error.message)")
                return YAIA_ERR_ARGUMENT
            }
        }
    }
}

/// The `yaia_host *` handles. A session is held only while its setup()
/// runs; the plugin's name outlives it, so that log() still names the
/// plugin afterwards. A handle is name << 36 | serial << 4 | tag: one name
/// entry per plugin name, however often it is loaded.
final class PluginHosts: @unchecked Sendable {
    static let tag: UInt = 0x9
    /// The same handle with this tag is the setup's config (setup_config()).
    static let configTag: UInt = 0xB
    private static let nameShift: UInt = 36
    private static let maxNames = 1 << 27

    private let lock = Lock()
    private var sessions: [UInt: LivePluginLoad] = [:]
    private var names: [String] = []
    private var nameIndex: [String: UInt] = [:]
    private var serial: UInt = 0

    func begin(_ session: LivePluginLoad) -> UInt {
        lock.withLock {
            var name = nameIndex[session.pluginName] ?? 0
            if name == 0 && names.count < PluginHosts.maxNames {
                names.append(session.pluginName)
                name = UInt(names.count)
                nameIndex[session.pluginName] = name
            }
            serial = (serial + 1) & 0xFFFF_FFFF
            let handle = name << PluginHosts.nameShift | serial << 4 | PluginHosts.tag
            sessions[handle] = session
            return handle
        }
    }

    func end(_ handle: UInt) {
        lock.withLock { _ = sessions.removeValue(forKey: handle) }
    }

    func session(_ host: OpaquePointer?) -> LivePluginLoad? {
        let handle = UInt(bitPattern: host)
        return lock.withLock { sessions[handle] }
    }

    func configHandle(_ host: OpaquePointer?) -> OpaquePointer? {
        guard session(host) != nil else { return nil }
        return OpaquePointer(bitPattern: UInt(bitPattern: host) & ~0xF | PluginHosts.configTag)
    }

    func config(_ handle: UInt) -> CallData? {
        lock.withLock { sessions[handle & ~0xF | PluginHosts.tag]?.config }
    }

    /// The plugin a handle was made for, during setup() or after.
    func pluginName(_ host: OpaquePointer?) -> String? {
        let handle = UInt(bitPattern: host)
        guard handle & 0xF == PluginHosts.tag else { return nil }
        let index = Int(handle >> PluginHosts.nameShift)
        return lock.withLock { index > 0 && index <= names.count ? names[index - 1] : nil }
    }

    /// Setups in progress, and plugin names known.
    var counts: (sessions: Int, names: Int) { lock.withLock { (sessions.count, names.count) } }
}

let pluginHosts = PluginHosts()

/// A plugin's typed ops as a service; reads no field beyond each struct's size.
func typedService(name: UnsafePointer<CChar>?, functions: UnsafePointer<yaia_function>?, count: Int, flags: UInt32,
                  plugin: String) throws(YaiaError) -> LiveService {
    guard let name else { throw YaiaError(.badService, "add_functions was given no service name") }
    let service = String(cString: name)
    try LiveService.validate(name: service)
    guard let functions, count > 0 else { throw YaiaError(.badService, "service \"\(service)\" has no functions") }
    let v1Size = MemoryLayout<yaia_function>.size
    var list: [ForeignFunction] = []
    var f = UnsafeRawPointer(functions)
    for _ in 0..<count {
        let entry = f.assumingMemoryBound(to: yaia_function.self).pointee
        guard entry.size >= v1Size else {
            throw YaiaError(.badService, "a yaia_function of service \"\(service)\" has size \(entry.size); ABI v1 needs \(v1Size)")
        }
        guard let rawOp = entry.op, let rawSignature = entry.signature, let fn = entry.function else {
            throw YaiaError(.badService, "a yaia_function of service \"\(service)\" lacks its op, signature or function")
        }
        let op = String(cString: rawOp)
        let signature: ForeignSignature
        do throws(YaiaError) {
            signature = try ForeignSignature(parsing: String(cString: rawSignature))
        } catch {
            throw YaiaError(.badSignature, "\(service).\(op): \(error.message)")
        }
        let free = entry.free
        list.append(try ForeignFunction(op: op, signature: signature, function: unsafeBitCast(fn, to: UnsafeMutableRawPointer.self), free: free))
        f += entry.size  // the author's stride, so newer, longer structs still walk right
    }
    return LiveService(name: service, origin: .plugin(plugin), blocking: flags & YAIA_SERVICE_BLOCKING != 0,
                        native: ForeignService(functions: list))
}

typealias PluginInit = @convention(c) (UnsafePointer<yaia_plugin_offer>?) -> UnsafePointer<yaia_plugin>?

/// The directories of YAIA_PLUGIN_PATH (colon-separated), in order.
func pluginSearchPath() -> [String] {
    guard let raw = getenv("YAIA_PLUGIN_PATH") else { return [] }
    return String(cString: raw).split(separator: ":").map(String.init)
}

/// The file a plugin or scene pack path names, the one rule for finding and
/// for opening it: an absolute path, or one starting with ./ or ../, as it
/// is; any other relative path in the working directory, else in the first
/// of `directories` that has it. The answer always holds a slash, so dlopen
/// opens that very file and never searches the library path for a bare
/// name. nil when there is no such file.
func resolveLibraryPath(_ path: String, searching directories: [String] = pluginSearchPath()) -> String? {
    guard !path.isEmpty else { return nil }
    if isAnchored(path) { return access(path, F_OK) == 0 ? path : nil }
    let candidates = [path.contains("/") ? path : "./" + path]
        + directories.filter { !$0.isEmpty }.map { $0.hasSuffix("/") ? $0 + path : $0 + "/" + path }
    return candidates.first { access($0, F_OK) == 0 }
}

/// Absolute, or explicitly relative to the working directory: never searched.
private func isAnchored(_ path: String) -> Bool {
    path.hasPrefix("/") || path.hasPrefix("./") || path.hasPrefix("../")
}

/// Loads a plugin: dlopen, negotiate, setup. The services it registers are
/// returned, not yet added: the caller commits them atomically. A request's
/// plugin (`files` granted) is found as the host's are, then opened beneath its grant.
func loadPlugin(path named: String, config: JSON, taken: Set<String>,
                files: FileAccess = .host) throws(YaiaError) -> (PluginInfo, [LiveService]) {
    let found = resolveLibraryPath(named)
    if found == nil, case .host = files {
        throw YaiaError(.pluginNotFound, "no plugin file at \(searchedPlaces(named))")
    }
    let file = try files.open(found ?? named, code: .pluginNotLoadable, missing: .pluginNotFound)
    let path = file.path
    // Never dlclose: the image may hold threads and code still referenced.
    let handle = try loadSharedObject(file, code: .pluginNotLoadable, what: "plugin")
    guard let symbol = dlsym(handle, YAIA_PLUGIN_ENTRY) else {
        throw YaiaError(.pluginNoEntry, "plugin \(path) does not export \(YAIA_PLUGIN_ENTRY)")
    }
    let entry = unsafeBitCast(symbol, to: PluginInit.self)

    let answer = offeredABIVersions.withUnsafeBufferPointer { versions -> UnsafePointer<yaia_plugin>? in
        var offer = yaia_plugin_offer(size: MemoryLayout<yaia_plugin_offer>.size, abi_versions: versions.baseAddress,
                                      abi_version_count: versions.count, host_version: yaiaVersionCString)
        return entry(&offer)
    }
    guard let answer else {
        throw YaiaError(.pluginABIMismatch, "plugin \(path) supports none of the offered ABI versions \(offeredABIVersions)")
    }
    return try setUpPlugin(answer, path: path, config: config, taken: taken)
}

/// Checks a plugin's descriptor and runs its setup(); the services it
/// registered are returned, not yet added.
func setUpPlugin(_ answer: UnsafePointer<yaia_plugin>, path: String, config: JSON,
                 taken: Set<String>) throws(YaiaError) -> (PluginInfo, [LiveService]) {
    let minimum = MemoryLayout<yaia_plugin>.size
    guard answer.pointee.size >= minimum else {
        throw YaiaError(.pluginABIMismatch, "plugin \(path) answered with a descriptor of \(answer.pointee.size) bytes; ABI v1 needs \(minimum)")
    }
    let descriptor = answer.pointee
    guard offeredABIVersions.contains(descriptor.abi_version) else {
        throw YaiaError(.pluginABIMismatch, "plugin \(path) chose ABI version \(descriptor.abi_version), which was not offered")
    }
    guard let rawName = descriptor.name, let setup = descriptor.setup else {
        throw YaiaError(.pluginABIMismatch, "plugin \(path) answered without a name or a setup function")
    }
    let name = String(cString: rawName)
    do {
        try LiveService.validate(name: name, what: "plugin", code: .pluginABIMismatch)
    }
    let version = descriptor.version.map { String(cString: $0) } ?? ""

    let session = LivePluginLoad(pluginName: name, taken: taken, config: config)
    let host = pluginHosts.begin(session)
    let status = config.serialized().withCString { setup(OpaquePointer(bitPattern: host), hostAPI, $0) }
    pluginHosts.end(host)
    let (staged, error, refusal) = session.end()
    func withdraw() { for s in staged { s.retire() } }
    // A refused registration explains a failed setup better than its status.
    if let refusal {
        withdraw()
        throw refusal
    }
    if status != 0 {
        withdraw()
        throw YaiaError(.pluginInitFailed, "plugin \(name) failed to set up: \(error ?? "setup returned \(status)")")
    }
    let info = PluginInfo(name: name, version: version, path: path, abi: descriptor.abi_version, services: staged.map(\.name))
    return (info, staged)
}
