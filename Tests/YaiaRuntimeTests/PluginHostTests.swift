import CYaia
import Glibc
import Synchronization
import Testing
import YaiaCore
import YaiaKit
@testable import YaiaRuntime

/// A plugin written in Swift, in process: its setup() reads its config,
/// registers the service "probe" and fails with the config's "fail" message
/// when there is one. It records the host handle it was given.
private enum Probe {
    nonisolated(unsafe) static let pluginName = UnsafePointer(strdup("swift_probe")!)
    nonisolated(unsafe) static let serviceName = UnsafePointer(strdup("probe")!)
    static let lastHost = Mutex<UInt>(0)

    static let setup: @convention(c) (OpaquePointer?, UnsafePointer<yaia_host_api>?, UnsafePointer<CChar>?) -> Int32 = { host, table, _ in
        guard let api = table?.pointee else { return 1 }
        lastHost.withLock { $0 = UInt(bitPattern: host) }
        var service = yaia_service(size: MemoryLayout<yaia_service>.size, name: Probe.serviceName, ctx: nil,
                                   perform: { _, _, _, _ in }, cancel: nil, release: nil, flags: 0)
        guard api.add_service(host, &service) == YAIA_OK else { return 1 }
        var why: UnsafePointer<CChar>?
        guard api.arg_string(api.setup_config(host), "fail", &why, nil) == YAIA_OK else { return 0 }
        api.set_error(host, why)
        return 1
    }

    static func load(config: JSON) throws(YaiaError) -> (PluginInfo, [LiveService]) {
        let descriptor = yaia_plugin(size: MemoryLayout<yaia_plugin>.size, abi_version: 1, name: pluginName,
                                     version: nil, description: nil, setup: setup)
        return try withUnsafePointer(to: descriptor) { pointer in
            Result { () throws(YaiaError) in try setUpPlugin(pointer, path: "(in process)", config: config, taken: []) }
        }.get()
    }
}

@Suite("Plugin load sessions", .serialized)
struct PluginHostTests {
    @Test("a session is let go when setup returns, however often a plugin loads")
    func sessionsDoNotAccumulate() throws {
        _ = try Probe.load(config: [:])
        let names = pluginHosts.counts.names
        for i in 0..<500 {
            if i % 2 == 0 {
                let (info, services) = try Probe.load(config: [:])
                #expect(info.services == ["probe"] && services.count == 1)
            } else {
                let error = yaiaError { () throws(YaiaError) in try Probe.load(config: ["fail": "refused on purpose"]) }
                #expect(error?.code == .pluginInitFailed)
            }
        }
        #expect(pluginHosts.counts.sessions == 0)
        #expect(pluginHosts.counts.names == names)
    }

    @Test("after setup, a host handle still names its plugin in log() and refuses the setup functions")
    func handleAfterSetup() throws {
        _ = try Probe.load(config: [:])
        let host = OpaquePointer(bitPattern: Probe.lastHost.withLock { $0 })
        #expect(pluginHosts.pluginName(host) == "swift_probe")
        #expect(pluginHosts.session(host) == nil)
        var service = yaia_service(size: MemoryLayout<yaia_service>.size, name: Probe.serviceName, ctx: nil,
                                   perform: { _, _, _, _ in }, cancel: nil, release: nil, flags: 0)
        #expect(hostAPI.pointee.add_service(host, &service) == YAIA_ERR_STATE)
        #expect(hostAPI.pointee.setup_config(host) == nil)
    }

    @Test("setup reads its config through the host; a failure says why")
    func configAndFailure() throws {
        let error = yaiaError { () throws(YaiaError) in try Probe.load(config: ["fail": "no database"]) }
        #expect(error?.code == .pluginInitFailed)
        #expect(error?.message == "plugin swift_probe failed to set up: no database")
    }
}
