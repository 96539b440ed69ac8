// The host API table handed to plugins (Include/yaia_plugin.h): what a
// plugin calls to register services, read a call's args (CallData.swift),
// build its result (ResultBuilder.swift) and queue work (PluginQueues.swift).
import CYaia
import Glibc
import YaiaCore
import YaiaKit

/// The host API table: one, constant, for the life of the process.
nonisolated(unsafe) let hostAPI: UnsafeMutablePointer<yaia_host_api> = {
    let table = UnsafeMutablePointer<yaia_host_api>.allocate(capacity: 1)
    table.initialize(to: yaia_host_api(
        size: MemoryLayout<yaia_host_api>.size,
        abi_version: 1,
        host_version: yaiaVersionCString,
        add_service: { host, service in
            guard let s = pluginHosts.session(host) else { return YAIA_ERR_STATE }
            return s.stage { () throws(YaiaError) -> LiveService in try LiveService(service, origin: .plugin(s.pluginName)) }
        },
        call_complete: { call, text in completeCall(call, text, failed: false) },
        call_fail: { call, text in completeCall(call, text, failed: true) },
        log: { host, level, message in
            let level = Log.Level(rawValue: max(0, min(level, 3))) ?? .warning
            guard Log.enabled(level) else { return }
            let source = pluginHosts.pluginName(host) ?? "plugin"
            let text = message.map { String(cString: $0) } ?? ""
            Log.write(level, source, text)
        },
        set_error: { host, message in
            pluginHosts.session(host)?.setError(message.map { String(cString: $0) } ?? "unknown error")
        },
        add_functions: { host, service, functions, count, flags in
            guard let s = pluginHosts.session(host) else { return YAIA_ERR_STATE }
            return s.stage { () throws(YaiaError) -> LiveService in
                try typedService(name: service, functions: functions, count: count, flags: flags, plugin: s.pluginName)
            }
        },
        call_op: { call in readable(call)?.opText() },
        arg_type: { call, name in
            guard let data = readable(call), let value = data.arg(name) else { return YAIA_JSON_NONE }
            return jsonType(value)
        },
        arg_count: { call, name in
            switch readable(call)?.arg(name) {
            case .object(let o)?: return o.count
            case .array(let a)?: return a.count
            default: return 0
            }
        },
        arg_string: { call, name, out, length in
            readArg(call, name, out) { data, value in
                guard case .string(let s) = value else { return nil }
                let (text, count) = data.keep(s.utf8)
                length?.pointee = count
                return UnsafePointer(text)
            }
        },
        arg_int: { call, name, out in readArg(call, name, out) { _, value in value.int64Value } },
        arg_double: { call, name, out in readArg(call, name, out) { _, value in value.doubleValue } },
        arg_bool: { call, name, out in readArg(call, name, out) { _, value in value.boolValue.map { $0 ? 1 : 0 } } },
        arg_json: { call, name, out, length in
            readArg(call, name, out) { data, value in
                let (text, count) = data.keep(value.serializedBytes())
                length?.pointee = count
                return UnsafePointer(text)
            }
        },
        setup_config: { host in pluginHosts.configHandle(host) },
        result_string: { call, name, value, length in
            guard let value else { return YAIA_ERR_ARGUMENT }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self),
                                            count: length == YAIA_NTS ? strlen(value) : length)
            return buildResult(call) { (b) throws(BuildError) in
                guard let s = String(validating: bytes, as: UTF8.self) else {
                    throw BuildError.badResult("a result string that is not UTF-8")
                }
                try b.place(memberName(name), .string(s), cost: bytes.count + 2)
            }
        },
        result_int: { call, name, value in
            buildResult(call) { (b) throws(BuildError) in try b.place(memberName(name), .int(value), cost: 20) }
        },
        result_double: { call, name, value in
            buildResult(call) { (b) throws(BuildError) in
                guard value.isFinite else { throw BuildError.badResult("a result number that is \(value), which JSON cannot hold") }
                try b.place(memberName(name), .double(value), cost: 24)
            }
        },
        result_bool: { call, name, value in
            buildResult(call) { (b) throws(BuildError) in try b.place(memberName(name), .bool(value != 0), cost: 5) }
        },
        result_json: { call, name, text, length in
            guard let text else { return YAIA_ERR_ARGUMENT }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self),
                                            count: length == YAIA_NTS ? strlen(text) : length)
            return buildResult(call) { (b) throws(BuildError) in
                let limits = b.limits
                let value: JSON
                do throws(YaiaError) {
                    try limits.checkSize(b.bytes + bytes.count)
                    value = try JSONParser.parse(bytes, maxDepth: max(0, limits.depth - b.depth))
                } catch {
                    guard error.code == .limitExceeded else { throw BuildError.badResult("result_json was given \(error.message)") }
                    let limit = error.limit ?? "depth"
                    throw BuildError(code: YAIA_ERR_LIMIT, failure: YaiaError.limit(limit, limits[limit], "the result built").json)
                }
                try b.place(memberName(name), value, cost: bytes.count)
            }
        },
        result_open: { call, name, type in
            guard type == YAIA_JSON_OBJECT || type == YAIA_JSON_ARRAY else { return YAIA_ERR_ARGUMENT }
            return buildResult(call) { (b) throws(BuildError) in try b.open(memberName(name), array: type == YAIA_JSON_ARRAY) }
        },
        result_close: { call in buildResult(call) { (b) throws(BuildError) in try b.close() } },
        result_reset: { call in buildResult(call) { (b) throws(BuildError) in b = ResultBuilder(limits: b.limits) } },
        call_finish: { call in
            guard let call else { return YAIA_ERR_ARGUMENT }
            guard let data = calls.get(UInt(bitPattern: call))?.callData else { return YAIA_ERR_STALE }
            let result = data.withBuilder { $0.finish() }
            return deliver(UInt(bitPattern: call), .success(result)) ? YAIA_OK : YAIA_ERR_STALE
        },
        call_error: { call, code, message in
            guard let call else { return YAIA_ERR_ARGUMENT }
            guard let data = calls.get(UInt(bitPattern: call))?.callData else { return YAIA_ERR_STALE }
            let error = data.withBuilder { b in
                b.error(code: code.map { String(cString: $0) }, message: message.map { String(cString: $0) })
            }
            guard let error else { return YAIA_ERR_STATE }
            return deliver(UInt(bitPattern: call), .failure(error)) ? YAIA_OK : YAIA_ERR_STALE
        },
        queue_new: { queues.insert(LiveQueue()).flatMap { OpaquePointer(bitPattern: $0) } },
        queue_submit: { queue, call, job, ctx in
            guard let queue, let job else { return YAIA_ERR_ARGUMENT }
            guard let q = queues.get(UInt(bitPattern: queue)) else { return YAIA_ERR_STALE }
            var data: CallData?
            if let call {
                guard let d = calls.get(UInt(bitPattern: call))?.callData else { return YAIA_ERR_STALE }
                data = d
            }
            return q.submit(LiveQueue.Job(function: job, context: ctx, call: UInt(bitPattern: call), data: data))
        },
        queue_free: { queue in
            guard let queue else { return }
            queues.remove(UInt(bitPattern: queue))?.free()
        }
    ))
    return table
}()
