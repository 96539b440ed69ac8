import CYaia
import Glibc
import YaiaCore
import YaiaKit

/// A C function called through libffi: its signature parsed and its
/// `ffi_cif` prepared once, at bind time, and reused by every call.
final class ForeignFunction: @unchecked Sendable {
    typealias Free = @convention(c) (UnsafeMutableRawPointer?) -> Void

    let op: String
    let signature: ForeignSignature
    private let function: UnsafeMutableRawPointer
    private let free: Free?
    // Owned for the life of the function; libffi keeps pointers into them.
    private let cif: UnsafeMutablePointer<ffi_cif>
    private let types: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>

    init(op: String, signature: ForeignSignature, function: UnsafeMutableRawPointer, free: Free?) throws(YaiaError) {
        self.op = op
        self.signature = signature
        self.function = function
        self.free = free
        let count = signature.parameters.count
        cif = .allocate(capacity: 1)
        types = .allocate(capacity: max(count, 1))
        for (i, p) in signature.parameters.enumerated() {
            types[i] = p.isOut ? cyaia_ffi_pointer() : ForeignFunction.ffiType(p.type)
        }
        let status = ffi_prep_cif(cif, cyaia_ffi_default_abi(), UInt32(count), ForeignFunction.ffiType(signature.returns), types)
        guard status == FFI_OK else {
            cif.deallocate()
            types.deallocate()
            throw YaiaError(.badSignature, "libffi cannot prepare a call of \(signature.description) (status \(status.rawValue))")
        }
    }

    deinit {
        cif.deallocate()
        types.deallocate()
    }

    static func ffiType(_ t: ForeignType) -> UnsafeMutablePointer<ffi_type> {
        switch t {
        case .void: return cyaia_ffi_void()
        case .bool, .uint8: return cyaia_ffi_uint8()
        case .int8: return cyaia_ffi_sint8()
        case .int16: return cyaia_ffi_sint16()
        case .uint16: return cyaia_ffi_uint16()
        case .int32: return cyaia_ffi_sint32()
        case .uint32: return cyaia_ffi_uint32()
        case .int64: return cyaia_ffi_sint64()
        case .uint64: return cyaia_ffi_uint64()
        case .size_t: return MemoryLayout<Int>.size == 8 ? cyaia_ffi_uint64() : cyaia_ffi_uint32()
        case .float: return cyaia_ffi_float()
        case .double: return cyaia_ffi_double()
        case .string, .ownedString, .bytes, .pointer: return cyaia_ffi_pointer()
        }
    }

    /// Calls the function with JSON arguments. Arguments are checked against
    /// the signature first; a bad one fails with `bad_argument` and no call.
    /// Pointers go in and out as handles of `handles`, the service's table.
    func call(_ args: JSON, handles: PointerHandles) -> Outcome {
        let list: [JSON]
        switch args {
        case .array(let a): list = a.elements
        case .null where signature.argumentCount == 0: list = []
        default:
            return ForeignFunction.badArgument(nil, "\(op) takes an array of \(counted(signature.argumentCount, "argument")), not \(args.kindName)")
        }
        guard list.count == signature.argumentCount else {
            return ForeignFunction.badArgument(nil, "\(op) takes \(counted(signature.argumentCount, "argument")) (\(signature.description)), not \(list.count)")
        }

        let count = signature.parameters.count
        // One 8-byte slot per parameter for its value, one per out-parameter
        // for what the callee writes; freed after the call.
        let slots = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * 16, alignment: 16)
        let outs = slots + max(count, 1) * 8
        let argv = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: max(count, 1))
        var owned: [UnsafeMutableRawPointer] = []
        var lent = PointerHandles.Loan()
        var called = false
        defer {
            for p in owned { Glibc.free(p) }
            argv.deallocate()
            slots.deallocate()
            handles.end(lent, called: called)
        }
        slots.initializeMemory(as: UInt8.self, repeating: 0, count: max(count, 1) * 16)

        var next = 0
        var pendingLength: Int?
        for (i, p) in signature.parameters.enumerated() {
            let slot = slots + i * 8
            argv[i] = slot
            if p.isOut {
                slot.storeBytes(of: outs + i * 8, as: UnsafeMutableRawPointer.self)
                continue
            }
            if p.isLength {
                guard let length = pendingLength, ForeignFunction.store(.int(Int64(length)), p.type, slot) != nil else {
                    return ForeignFunction.badArgument(next - 1, "argument \(next - 1) is too long for its \(p.type.rawValue) length")
                }
                continue
            }
            let index = next
            next += 1
            let value = list[index]
            switch p.type {
            case .pointer:
                let handle: UInt64
                switch value {
                case .null: handle = 0
                case .int(let i) where i >= 0: handle = UInt64(i)
                case .uint(let u): handle = u
                default:
                    return ForeignFunction.badArgument(index, "argument \(index) must be a pointer handle or null, not \(value.kindName)")
                }
                guard let address = handles.lend(handle, consume: p.consumes, into: &lent) else {
                    return ForeignFunction.badArgument(index, handles.refusal(handle, index: index))
                }
                slot.storeBytes(of: address, as: UInt.self)
            case .string:
                guard case .string(let s) = value else {
                    return ForeignFunction.badArgument(index, "argument \(index) must be a string, not \(value.kindName)")
                }
                guard !s.utf8.contains(0) else {
                    return ForeignFunction.badArgument(index, "argument \(index) contains a NUL byte, which a C string cannot carry")
                }
                guard let copy = strdup(s) else { return ForeignFunction.badArgument(index, "out of memory") }
                owned.append(UnsafeMutableRawPointer(copy))
                slot.storeBytes(of: UnsafeMutableRawPointer(copy), as: UnsafeMutableRawPointer.self)
            case .bytes:
                let bytes: [UInt8]
                switch value {
                case .string(let s): bytes = Array(s.utf8)
                case .object(let o) where o.count == 1:
                    guard case .string(let text)? = o["base64"], let decoded = Base64.decode(text) else {
                        return ForeignFunction.badArgument(index, "argument \(index) must be a string or {\"base64\": valid base64}")
                    }
                    bytes = decoded
                default:
                    return ForeignFunction.badArgument(index, "argument \(index) must be a string or {\"base64\": ...}, not \(value.kindName)")
                }
                guard let buffer = malloc(max(bytes.count, 1)) else { return ForeignFunction.badArgument(index, "out of memory") }
                owned.append(buffer)
                bytes.withUnsafeBytes { if let base = $0.baseAddress { buffer.copyMemory(from: base, byteCount: bytes.count) } }
                slot.storeBytes(of: buffer, as: UnsafeMutableRawPointer.self)
                pendingLength = bytes.count
            default:
                guard ForeignFunction.store(value, p.type, slot) != nil else {
                    return ForeignFunction.badArgument(index, ForeignFunction.mismatch(value, p.type, index))
                }
            }
        }

        // Room for the pointers the call hands out, before it is made.
        guard handles.reserve(signature.pointersOut, into: &lent) else {
            return .failure(["code": .string(ErrorCode.handleTableFull.rawValue),
                             "message": .string("\(op) would return a pointer, and its service holds \(PointerHandles.limit) handles: "
                                                + "pass some to functions that take pointer! first")])
        }
        let result = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        defer { result.deallocate() }
        result.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
        ffi_call(cif, unsafeBitCast(function, to: (@convention(c) () -> Void).self), result, argv)
        called = true

        func value(_ p: UnsafeMutableRawPointer, _ t: ForeignType, widened: Bool) -> JSON {
            guard t == .pointer else { return read(p, t, widened: widened) }
            return .int(handles.record(p.load(as: UInt.self), from: &lent))
        }
        let returned = value(result, signature.returns, widened: true)
        guard signature.outCount > 0 else { return .success(returned) }
        var outValues: [JSON] = []
        for (i, p) in signature.parameters.enumerated() where p.isOut {
            outValues.append(value(outs + i * 8, p.type, widened: false))
        }
        return .success(["return": returned, "out": .array(outValues)])
    }

    /// Writes a JSON scalar as C type `t`; nil when it does not fit.
    static func store(_ value: JSON, _ t: ForeignType, _ slot: UnsafeMutableRawPointer) -> Void? {
        if let bounds = t.integerBounds {
            switch value {
            case .int(let i):
                guard i >= bounds.min, i < 0 || UInt64(i) <= bounds.max else { return nil }
                storeInteger(UInt64(bitPattern: i), t, slot)
            case .uint(let u):
                guard u <= bounds.max else { return nil }
                storeInteger(u, t, slot)
            case .double(let d):
                // Beyond 2^53 a double may be a rounded integer literal: refuse
                // rather than pass a value nobody wrote.
                guard abs(d) <= 9_007_199_254_740_992, let i = Int64(exactly: d) else { return nil }
                return store(.int(i), t, slot)
            default: return nil
            }
            return ()
        }
        switch t {
        case .bool:
            guard case .bool(let b) = value else { return nil }
            slot.storeBytes(of: b ? 1 : 0, as: UInt8.self)
        case .float, .double:
            let d: Double
            switch value {
            case .string("NaN"): d = .nan
            case .string("Infinity"): d = .infinity
            case .string("-Infinity"): d = -.infinity
            default:
                guard let n = value.doubleValue else { return nil }
                d = n
            }
            if t == .float {
                guard !d.isFinite || abs(d) <= Double(Float.greatestFiniteMagnitude) else { return nil }
                slot.storeBytes(of: Float(d), as: Float.self)
            } else {
                slot.storeBytes(of: d, as: Double.self)
            }
        default: return nil
        }
        return ()
    }

    private static func storeInteger(_ bits: UInt64, _ t: ForeignType, _ slot: UnsafeMutableRawPointer) {
        switch t {
        case .int8, .uint8: slot.storeBytes(of: UInt8(truncatingIfNeeded: bits), as: UInt8.self)
        case .int16, .uint16: slot.storeBytes(of: UInt16(truncatingIfNeeded: bits), as: UInt16.self)
        case .int32, .uint32: slot.storeBytes(of: UInt32(truncatingIfNeeded: bits), as: UInt32.self)
        default: slot.storeBytes(of: bits, as: UInt64.self)
        }
    }

    /// Reads a C value as JSON. Returns of integer types narrower than
    /// `ffi_arg` come back widened to it (`widened`); out slots do not.
    private func read(_ p: UnsafeMutableRawPointer, _ t: ForeignType, widened: Bool) -> JSON {
        let wide = p.load(as: UInt64.self)  // ffi_arg on LP64
        switch t {
        case .void: return .null
        case .bool: return .bool((widened ? UInt8(truncatingIfNeeded: wide) : p.load(as: UInt8.self)) != 0)
        case .int8: return .int(Int64(widened ? Int8(truncatingIfNeeded: wide) : p.load(as: Int8.self)))
        case .uint8: return .int(Int64(widened ? UInt8(truncatingIfNeeded: wide) : p.load(as: UInt8.self)))
        case .int16: return .int(Int64(widened ? Int16(truncatingIfNeeded: wide) : p.load(as: Int16.self)))
        case .uint16: return .int(Int64(widened ? UInt16(truncatingIfNeeded: wide) : p.load(as: UInt16.self)))
        case .int32: return .int(Int64(widened ? Int32(truncatingIfNeeded: wide) : p.load(as: Int32.self)))
        case .uint32: return .int(Int64(widened ? UInt32(truncatingIfNeeded: wide) : p.load(as: UInt32.self)))
        case .int64: return .int(p.load(as: Int64.self))
        case .uint64, .size_t: return JSON(p.load(as: UInt64.self))
        case .float: return ForeignFunction.number(Double(p.load(as: Float.self)))
        case .double: return ForeignFunction.number(p.load(as: Double.self))
        case .string, .ownedString:
            guard let text = p.load(as: UnsafeMutablePointer<CChar>?.self) else { return .null }
            let s = String(decoding: UnsafeRawBufferPointer(start: text, count: strlen(text)), as: UTF8.self)
            if t == .ownedString { (free ?? { Glibc.free($0) })(UnsafeMutableRawPointer(text)) }
            return .string(s)
        case .bytes, .pointer: return .null  // pointers are read as handles, by the caller
        }
    }

    /// Doubles JSON cannot carry travel as the strings "NaN", "Infinity", "-Infinity".
    static func number(_ d: Double) -> JSON {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        return .double(d)
    }

    static func mismatch(_ value: JSON, _ t: ForeignType, _ index: Int) -> String {
        if t.isInteger, case .double(let d) = value {
            if abs(d) > 9_007_199_254_740_992 { return "argument \(index) is out of range for \(t.rawValue)" }
            if d != d.rounded() { return "argument \(index) must be a whole number for \(t.rawValue), not a fraction" }
        }
        if t.isInteger, value.isNumber { return "argument \(index) is out of range for \(t.rawValue)" }
        if t == .float, value.isNumber { return "argument \(index) is out of range for float" }
        return "argument \(index) must be \(t == .bool ? "a boolean" : "a number") for \(t.rawValue), not \(value.kindName)"
    }

    static func badArgument(_ index: Int?, _ message: String) -> Outcome {
        var o: JSONObject = ["code": .string(ErrorCode.badArgument.rawValue), "message": .string(message)]
        if let index { o["index"] = .int(Int64(index)) }
        return .failure(.object(o))
    }
}

/// The pointers a foreign service's functions handed out, by handle: JSON
/// sees handles (1, 2, 3, ...), never addresses, and a pointer argument is
/// only ever an address recorded here. A handle is lent to a call for its
/// length; a `pointer!` argument takes it for good (the handle is forgotten
/// after the call) and only while no other call holds it. Thread-safe.
final class PointerHandles: @unchecked Sendable {
    /// The most handles a service holds at once.
    static let limit = 65_536

    /// What one call borrowed, consumed and reserved; settled by `end`.
    struct Loan {
        fileprivate var lent: [UInt64] = []
        fileprivate var consumed: [UInt64] = []
        fileprivate var reserved = 0
    }

    private struct Entry {
        var address: UInt
        /// Calls holding it; -1 while a `pointer!` argument has it.
        var holders: Int
    }

    private let lock = Lock()
    private var entries: [UInt64: Entry] = [:]
    private var handleOf: [UInt: UInt64] = [:]
    private var nextHandle: UInt64 = 1
    private var reserved = 0

    /// The address of `handle` for a call (0 for handle 0: NULL), or nil
    /// when this table never handed it out, forgot it, or (to consume it)
    /// another call holds it.
    func lend(_ handle: UInt64, consume: Bool, into loan: inout Loan) -> UInt? {
        guard handle != 0 else { return 0 }
        return lock.withLock {
            guard var entry = entries[handle], entry.holders >= 0, !consume || entry.holders == 0 else { return nil }
            entry.holders = consume ? -1 : entry.holders + 1
            entries[handle] = entry
            if consume { loan.consumed.append(handle) } else { loan.lent.append(handle) }
            return entry.address
        }
    }

    /// Why `lend` refused `handle`.
    func refusal(_ handle: UInt64, index: Int) -> String {
        let held = lock.withLock { entries[handle] != nil }
        return held ? "argument \(index): pointer handle \(handle) is in use by another call, so it cannot be consumed now"
                    : "argument \(index): \(handle) is not a pointer handle of this service (handles come from its functions' pointer results)"
    }

    /// Holds room for `count` new handles until the call ends; false when full.
    func reserve(_ count: Int, into loan: inout Loan) -> Bool {
        guard count > 0 else { return true }
        return lock.withLock {
            guard entries.count + reserved + count <= PointerHandles.limit else { return false }
            reserved += count
            loan.reserved += count
            return true
        }
    }

    /// The handle of a pointer a call returned: 0 for NULL, the same handle
    /// for an address already held. Uses the call's reservation.
    func record(_ address: UInt, from loan: inout Loan) -> Int64 {
        guard address != 0 else { return 0 }
        return lock.withLock {
            if loan.reserved > 0 {
                loan.reserved -= 1
                reserved -= 1
            }
            if let handle = handleOf[address], entries[handle]?.holders != -1 { return Int64(bitPattern: handle) }
            let handle = nextHandle
            // Handles stay below 2^53 for any number of calls a process can make.
            nextHandle &+= 1
            entries[handle] = Entry(address: address, holders: 0)
            handleOf[address] = handle
            return Int64(bitPattern: handle)
        }
    }

    /// Gives back what a call held: consumed handles are forgotten if the
    /// call was made, returned to the table if it was not.
    func end(_ loan: Loan, called: Bool) {
        guard !loan.lent.isEmpty || !loan.consumed.isEmpty || loan.reserved > 0 else { return }
        lock.withLock {
            reserved -= loan.reserved
            for handle in loan.lent { entries[handle]?.holders -= 1 }
            for handle in loan.consumed {
                if called {
                    if let entry = entries.removeValue(forKey: handle), handleOf[entry.address] == handle {
                        handleOf[entry.address] = nil
                    }
                } else {
                    entries[handle]?.holders = 0
                }
            }
        }
    }
}

/// A service whose ops are C functions called through libffi.
final class ForeignService: NativeService, @unchecked Sendable {
    let functions: [String: ForeignFunction]
    let handles = PointerHandles()

    init(functions: [ForeignFunction]) {
        var map: [String: ForeignFunction] = [:]
        for f in functions { map[f.op] = f }
        self.functions = map
    }

    func perform(op: String, args: JSON) -> Outcome {
        guard let f = functions[op] else {
            return .failure(["code": "unknown_op", "message": .string("no op \"\(op)\"; known: \(functions.keys.sorted().joined(separator: ", "))")])
        }
        return f.call(args, handles: handles)
    }
}

/// Binds a service to symbols of a shared library:
/// `{"service", "library", "ops": {OP: SIGNATURE | {"symbol", "signature", "free"}}, "free", "blocking"}`.
func bindLibrary(_ request: JSONObject, at pointer: String, files: FileAccess = .host) throws(YaiaError) -> LiveService {
    for (key, _) in request where !["op", "tag", "service", "library", "ops", "free", "blocking"].contains(key) {
        throw YaiaError(.badBinding, "unknown binding key \"\(key)\"", at: JSONPointer.appending(pointer, key))
    }
    guard case .string(let name)? = request["service"] else {
        throw YaiaError(.badBinding, "a binding needs a \"service\" name", at: pointer + "/service")
    }
    try LiveService.validate(name: name, code: .badBinding)
    // An empty name would make dlopen hand out the whole process's symbols.
    guard case .string(let library)? = request["library"], !library.isEmpty else {
        throw YaiaError(.badBinding, "a binding needs a non-empty \"library\" to load", at: pointer + "/library")
    }
    guard case .object(let ops)? = request["ops"], !ops.isEmpty else {
        throw YaiaError(.badBinding, "a binding needs \"ops\": {name: signature}", at: pointer + "/ops")
    }
    var blocking = false
    if let b = request["blocking"] {
        guard case .bool(let value) = b else { throw YaiaError(.badBinding, "\"blocking\" must be a boolean", at: pointer + "/blocking") }
        blocking = value
    }
    let defaultFree = try request["free"].map { (v) throws(YaiaError) -> String in
        guard case .string(let s) = v else { throw YaiaError(.badBinding, "\"free\" must be a symbol name", at: pointer + "/free") }
        return s
    }
    // Never dlclose: bound functions stay callable for the life of the process.
    // A path (a soname has no slash) is a file, opened and checked as any shared object.
    let handle: UnsafeMutableRawPointer
    if library.contains("/") {
        let file: OpenedFile
        do throws(YaiaError) { file = try files.open(library, code: .libraryNotFound) } catch { throw error.at == nil ? error.located(pointer + "/library") : error }
        handle = try loadSharedObject(file, code: .libraryNotFound, what: "library", at: pointer + "/library")
    } else if let h = dlopen(library, RTLD_NOW | RTLD_LOCAL) {
        handle = h
    } else {
        let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
        throw YaiaError(.libraryNotFound, "cannot load library \(library): \(reason)", at: pointer + "/library")
    }
    func symbol(_ name: String, at: String) throws(YaiaError) -> UnsafeMutableRawPointer {
        _ = dlerror()
        guard let p = dlsym(handle, name) else {
            throw YaiaError(.symbolNotFound, "\(library) has no symbol \"\(name)\"", at: at)
        }
        return p
    }
    var functions: [ForeignFunction] = []
    for (op, spec) in ops {
        let at = JSONPointer.appending(pointer + "/ops", op)
        var symbolName = op
        var signatureText: String
        var freeName = defaultFree
        switch spec {
        case .string(let s): signatureText = s
        case .object(let o):
            for (key, value) in o {
                guard ["symbol", "signature", "free"].contains(key) else {
                    throw YaiaError(.badBinding, "unknown key \"\(key)\" in op \"\(op)\" (known: symbol, signature, free)", at: JSONPointer.appending(at, key))
                }
                guard case .string(let text) = value, !text.isEmpty else {
                    throw YaiaError(.badBinding, "\"\(key)\" of op \"\(op)\" must be a non-empty string", at: JSONPointer.appending(at, key))
                }
                switch key {
                case "symbol": symbolName = text
                case "free": freeName = text
                default: break
                }
            }
            guard case .string(let s)? = o["signature"] else {
                throw YaiaError(.badBinding, "op \"\(op)\" needs a \"signature\"", at: at + "/signature")
            }
            signatureText = s
        default:
            throw YaiaError(.badBinding, "op \"\(op)\" must be a signature string or {\"symbol\", \"signature\", \"free\"}", at: at)
        }
        let signature: ForeignSignature
        do throws(YaiaError) {
            signature = try ForeignSignature(parsing: signatureText)
        } catch {
            throw YaiaError(.badSignature, error.message, at: at)
        }
        var free: ForeignFunction.Free?
        if signature.returns == .ownedString {
            // Found as the library's own calls find it: in the process first,
            // whose allocator may replace libc's (jemalloc, a sanitizer), then
            // in the library. dlsym(handle, "free") alone would find libc's.
            let name = freeName ?? "free"
            let p: UnsafeMutableRawPointer
            if let global = dlsym(nil, name) { p = global } else { p = try symbol(name, at: at) }
            free = unsafeBitCast(p, to: ForeignFunction.Free.self)
        }
        functions.append(try ForeignFunction(op: op, signature: signature, function: try symbol(symbolName, at: at), free: free))
    }
    return LiveService(name: name, origin: .foreign(library), blocking: blocking, native: ForeignService(functions: functions))
}
