import YaiaCore

/// The service holder: services by name, registered by the host, plugins
/// and bindings; effects reach them by name.
extension Runtime {
    public func addService(_ entry: ServiceEntry) throws(YaiaError) {
        try lock.withLock { () throws(YaiaError) in
            try checkRunning()
            guard services[entry.name] == nil else {
                throw YaiaError(.duplicateService, "a service named \"\(entry.name)\" is already registered")
            }
            services[entry.name] = entry
        }
    }

    @discardableResult
    public func loadPlugin(path: String, config: JSON) throws(YaiaError) -> PluginInfo {
        let taken = lock.withLock { Set(services.keys) }
        let (info, entries) = try YaiaRuntime.loadPlugin(path: path, config: config, taken: taken)
        do throws(YaiaError) {
            try lock.withLock { () throws(YaiaError) in
                try checkRunning()
                // Another thread may have registered a name meanwhile.
                if let clash = entries.first(where: { services[$0.name] != nil }) {
                    throw YaiaError(.duplicateService, "plugin \(info.name) registers service \"\(clash.name)\", which is already registered")
                }
                for e in entries { services[e.name] = e }
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
        let entry = try bindLibrary(binding, at: pointer)
        try addService(entry)
        let ops = (entry.native as? ForeignService)?.functions.keys.sorted() ?? []
        return ["ok": true, "service": .string(entry.name), "ops": .array(ops.map(JSON.string))]
    }

    public func serviceList() -> JSON {
        let list = lock.withLock { services.values.sorted { $0.name < $1.name } }
        return ["ok": true, "services": .array(list.map(\.json))]
    }

}
