import YaiaCore
import YaiaKit

/// The service holder (DESIGN.md): the services of a runtime by name,
/// registered by the host, by plugins and by bindings; effects reach them by
/// name. Guarded by the runtime's lock.
struct ServiceHolder {
    private var services: [String: LiveService] = [:]
    /// The service found last: an effect's service is looked up when it is
    /// admitted and again when it starts, and a name compares faster than it hashes.
    private var recent: LiveService?

    subscript(name: String) -> LiveService? {
        mutating get {
            if let recent, recent.name == name { return recent }
            recent = services[name]
            return recent
        }
    }

    var names: Set<String> { Set(services.keys) }

    /// The services, by name.
    var list: [LiveService] { services.values.sorted { $0.name < $1.name } }

    /// Adds services, all or none: a name already held is `duplicate_service`.
    mutating func add(_ entries: [LiveService], from plugin: String? = nil) throws(YaiaError) {
        if let clash = entries.first(where: { services[$0.name] != nil }) {
            throw YaiaError(.duplicateService, plugin.map { "plugin \($0) registers service \"\(clash.name)\", which is already registered" }
                            ?? "a service named \"\(clash.name)\" is already registered")
        }
        for e in entries { services[e.name] = e }
    }

    /// Lets go of every service; returns them, to be retired.
    mutating func removeAll() -> [LiveService] {
        defer {
            services.removeAll()
            recent = nil
        }
        return Array(services.values)
    }
}

extension Runtime {
    public func addService(_ entry: LiveService) throws(YaiaError) {
        try lock.withLock { () throws(YaiaError) in
            try checkRunning()
            try services.add([entry])
        }
    }

    @discardableResult
    public func loadPlugin(path: String, config: JSON) throws(YaiaError) -> PluginInfo {
        try loadPlugin(path: path, config: config, files: .host)
    }

    /// `files` says how the plugin's file is opened: as the host's, or beneath a request's grant.
    @discardableResult
    func loadPlugin(path: String, config: JSON, files: FileAccess) throws(YaiaError) -> PluginInfo {
        let taken = lock.withLock { services.names }
        let (info, entries) = try YaiaRuntime.loadPlugin(path: path, config: config, taken: taken, files: files)
        do throws(YaiaError) {
            try lock.withLock { () throws(YaiaError) in
                try checkRunning()
                // Another thread may have registered a name meanwhile.
                try services.add(entries, from: info.name)
                plugins.append(info)
            }
        } catch {
            for e in entries { e.retire() }
            throw error
        }
        return info
    }

    /// Binds a service to a shared library's functions (see docs/ffi.md).
    @discardableResult
    public func bind(_ binding: JSONObject, at pointer: String = "") throws(YaiaError) -> JSON {
        try bind(binding, at: pointer, files: .host)
    }

    /// `files` says how a library named by its path is opened.
    func bind(_ binding: JSONObject, at pointer: String, files: FileAccess) throws(YaiaError) -> JSON {
        let entry = try bindLibrary(binding, at: pointer, files: files)
        try addService(entry)
        let ops = (entry.native as? ForeignService)?.functions.keys.sorted() ?? []
        return ["ok": true, "service": .string(entry.name), "ops": .array(ops.map(JSON.string))]
    }

    public func serviceList() -> JSON {
        let list = lock.withLock { services.list }
        return ["ok": true, "services": .array(list.map(\.json))]
    }

}
