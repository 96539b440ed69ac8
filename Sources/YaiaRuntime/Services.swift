import CYaia
import YaiaCore

/// A service registered in a runtime: a C `yaia_service`, from a plugin or
/// from the host program.
public struct ServiceEntry: @unchecked Sendable {
    public enum Origin: Sendable, Equatable {
        case plugin(String)
        case host
    }

    public let name: String
    public let origin: Origin
    // Raw C pointers: the ABI promises they stay valid while the runtime lives.
    let ctx: UnsafeMutableRawPointer?
    let perform: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void
    let cancel: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void)?
    let release: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?

    /// Copies a C service struct, reading no field beyond its declared size.
    public init(_ pointer: UnsafePointer<yaia_service>?, origin: Origin) throws(YaiaError) {
        guard let pointer else { throw YaiaError(.badService, "the service is NULL") }
        let size = pointer.pointee.size
        let v1Size = MemoryLayout<yaia_service>.size
        guard size >= v1Size else {
            throw YaiaError(.badService, "the service struct's size is \(size); ABI v1 needs at least \(v1Size)")
        }
        let s = pointer.pointee
        guard let rawName = s.name else { throw YaiaError(.badService, "the service has no name") }
        let name = String(cString: rawName)
        try ServiceEntry.validate(name: name)
        guard let perform = s.perform else {
            throw YaiaError(.badService, "service \"\(name)\" has no perform callback")
        }
        self.name = name
        self.origin = origin
        self.ctx = s.ctx
        self.perform = perform
        self.cancel = s.cancel
        self.release = s.release
    }

    /// 1 to 64 bytes of [A-Za-z0-9_.-], for services and plugins alike.
    static func validate(name: String, what: String = "service", code: ErrorCode = .badService) throws(YaiaError) {
        let bytes = Array(name.utf8)
        let ok = !bytes.isEmpty && bytes.count <= 64 && bytes.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: "_") || c == UInt8(ascii: ".") || c == UInt8(ascii: "-")
        }
        guard ok else {
            throw YaiaError(code, "\(what) name \"\(name)\" must be 1 to 64 characters of A-Z a-z 0-9 _ . -")
        }
    }

    var json: JSON {
        switch origin {
        case .host: return ["name": .string(name), "origin": "host"]
        case .plugin(let p): return ["name": .string(name), "origin": "plugin", "plugin": .string(p)]
        }
    }
}

/// A call in flight: which runtime and effect its completion belongs to.
final class CallTarget: Sendable {
    let runtime: Runtime
    let effectID: Int64
    let service: ServiceEntry

    init(runtime: Runtime, effectID: Int64, service: ServiceEntry) {
        self.runtime = runtime
        self.effectID = effectID
        self.service = service
    }
}

/// Calls in flight, process-wide: `yaia_call_complete` has no runtime argument.
/// Completing removes the call, so a second completion finds nothing (stale).
let calls = HandleTable<CallTarget>(tag: 0x5)

func callPointer(_ handle: UInt) -> OpaquePointer? { OpaquePointer(bitPattern: handle) }

/// Completes a call from C. Returns a YAIA_OK / YAIA_ERR_* code.
public func completeCall(_ call: OpaquePointer?, _ text: UnsafePointer<CChar>?, failed: Bool) -> Int32 {
    guard let call else { return YAIA_ERR_ARGUMENT }
    guard let text else { return YAIA_ERR_ARGUMENT }
    guard let target = calls.remove(UInt(bitPattern: call)) else { return YAIA_ERR_STALE }
    let length = strlen(text)
    let parsed = text.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
        Result { () throws(YaiaError) in try JSONParser.parse(UnsafeBufferPointer(start: bytes, count: length)) }
    }
    switch parsed {
    case .success(let value):
        target.runtime.complete(effectID: target.effectID, outcome: failed ? .failure(value) : .success(value))
        return YAIA_OK
    case .failure(let error):
        Log.write(.warning, target.service.name, "completed a call with \(error.message)")
        let failure: JSON = ["code": .string(ErrorCode.badResult.rawValue),
                             "message": .string("service \(target.service.name) completed with \(error.message)")]
        target.runtime.complete(effectID: target.effectID, outcome: .failure(failure))
        return YAIA_ERR_JSON
    }
}

import Glibc
