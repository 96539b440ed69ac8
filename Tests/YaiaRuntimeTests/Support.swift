import CYaia
import Foundation
import Synchronization
import Testing
import YaiaCore
import YaiaExamples
import YaiaKit
import YaiaRuntime

/// A runtime with the example scene types and nothing else.
func makeRuntime(grants: Grants = Grants(), limits: Limits = Limits()) -> Runtime {
    Runtime(catalog: SceneCatalog(Examples.sceneTypes), grants: grants, limits: limits)
}

/// The "types" a runtime of the examples lists: the catalog's names, sorted by bytes.
let exampleTypes: JSON = .array(SceneCatalog(Examples.sceneTypes).names.map(JSON.string))

extension Runtime {
    /// `execute` on request text, the way the C ABI calls it.
    func run(_ request: String) -> JSON {
        var text = request
        return text.withUTF8 { execute($0) }
    }
}

/// Parses JSON text that the test itself wrote.
func json(_ text: String) throws -> JSON { try JSONParser.parse(text) }

/// The YaiaError a body throws, or nil when it returns normally.
func yaiaError<T>(_ body: () throws(YaiaError) -> T) -> YaiaError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// The error object of an envelope, checked to be one.
func envelopeError(_ response: JSON, sourceLocation: SourceLocation = #_sourceLocation) -> JSON? {
    #expect(response["ok"] == false, sourceLocation: sourceLocation)
    return response["error"]
}

/// The login view models the tests meet most.
enum LoginVM {
    static let initial: JSON = ["canSubmit": false, "email": "", "error": .null, "isSubmitting": false]
    static let filled: JSON = ["canSubmit": true, "email": "a@b.c", "error": .null, "isSubmitting": false]
    static let submitting: JSON = ["canSubmit": false, "email": "a@b.c", "error": .null, "isSubmitting": true]
}

let loginArgs: JSON = ["email": "a@b.c", "password": "hunter2"]

/// A value protected by a mutex, shareable between threads.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value { mutex.withLock { $0 } }
    func update<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

// MARK: - A host service built from a C yaia_service

/// A service written in Swift behind the C `yaia_service` struct, the way a
/// host program registers one with yaia_add_service().
final class HostService: Sendable {
    enum Mode: Sendable {
        /// Completes inside perform(), on the calling thread.
        case inline(String, failed: Bool)
        /// Completes from a new thread, after perform() returned.
        case thread(String, failed: Bool)
        /// Keeps the call; the test completes it with `complete(_:_:failed:)`.
        case hold
    }

    struct Performed: Sendable, Equatable {
        var op: String
        var args: String
    }

    let name: String
    let mode: Mode
    /// strdup'd, never freed: the runtime keeps the pointer for its life.
    nonisolated(unsafe) let cName: UnsafeMutablePointer<CChar>
    let performed = Locked<[Performed]>([])
    /// Call handles (as bits) that perform() received, in order.
    let calls = Locked<[UInt]>([])
    let cancelled = Locked<[UInt]>([])
    let releases = Locked(0)
    /// What completeCall returned, for completions this service made itself.
    let completionCodes = Locked<[Int32]>([])

    init(_ name: String, _ mode: Mode) {
        self.name = name
        self.mode = mode
        let bytes = Array(name.utf8CString)
        cName = .allocate(capacity: bytes.count)
        cName.initialize(from: bytes, count: bytes.count)
    }

    /// The C struct, as a host fills it in.
    func cStruct(size: Int = MemoryLayout<yaia_service>.size, withPerform: Bool = true) -> yaia_service {
        var s = yaia_service()
        s.size = size
        s.name = UnsafePointer(cName)
        // Retained for the runtime; release() balances it.
        s.ctx = Unmanaged.passRetained(self).toOpaque()
        if withPerform { s.perform = hostServicePerform }
        s.cancel = hostServiceCancel
        s.release = hostServiceRelease
        return s
    }

    /// Registers this service with a runtime through LiveService, as yaia_add_service does.
    func register(in runtime: Runtime) throws {
        var s = cStruct()
        let entry = try withUnsafePointer(to: &s) { p in
            try Result { () throws(YaiaError) in try LiveService(p, origin: .host) }.get()
        }
        try Result { () throws(YaiaError) in try runtime.addService(entry) }.get()
    }

    fileprivate func perform(call: OpaquePointer?, op: String, args: String) {
        let bits = UInt(bitPattern: call)
        performed.update { $0.append(Performed(op: op, args: args)) }
        calls.update { $0.append(bits) }
        switch mode {
        case .inline(let text, let failed):
            let code = completeCall(call, text, failed: failed)
            completionCodes.update { $0.append(code) }
        case .thread(let text, let failed):
            Thread.detachNewThread { [self] in
                let code = completeCall(OpaquePointer(bitPattern: bits), text, failed: failed)
                completionCodes.update { $0.append(code) }
            }
        case .hold:
            break
        }
    }

    /// Completes a held call (by its index among the calls performed).
    func complete(_ index: Int, _ text: String, failed: Bool = false) -> Int32 {
        let bits = calls.value[index]
        return completeCall(OpaquePointer(bitPattern: bits), text, failed: failed)
    }
}

private func service(_ ctx: UnsafeMutableRawPointer?) -> HostService? {
    ctx.map { Unmanaged<HostService>.fromOpaque($0).takeUnretainedValue() }
}

private let hostServicePerform: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void = {
    ctx, call, op, args in
    service(ctx)?.perform(call: call, op: op.map { String(cString: $0) } ?? "<NULL>",
                          args: args.map { String(cString: $0) } ?? "<NULL>")
}

private let hostServiceCancel: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void = { ctx, call in
    service(ctx)?.cancelled.update { $0.append(UInt(bitPattern: call)) }
}

private let hostServiceRelease: @convention(c) (UnsafeMutableRawPointer?) -> Void = { ctx in
    guard let ctx else { return }
    let s = Unmanaged<HostService>.fromOpaque(ctx).takeRetainedValue()
    s.releases.update { $0 += 1 }
}

/// Waits for the next event, with a generous bound so that a bug hangs no test run.
func nextEvent(_ runtime: Runtime, sourceLocation: SourceLocation = #_sourceLocation) -> JSON? {
    let event = runtime.receive(timeout: 30)
    #expect(event != nil, "no event arrived", sourceLocation: sourceLocation)
    return event
}

/// Calls receive(timeout:) on a new thread. The returned function waits for
/// that call: .some(event) when it returned, nil when it still had not after
/// 60 seconds (a bound only so that a regression fails instead of hanging the run).
func receiveOnThread(_ runtime: Runtime, timeout: Double, started: DispatchSemaphore? = nil) -> () -> JSON?? {
    let finished = DispatchSemaphore(value: 0)
    let result = Locked<JSON??>(nil)
    Thread.detachNewThread {
        started?.signal()
        let event = runtime.receive(timeout: timeout)
        result.update { $0 = .some(event) }
        finished.signal()
    }
    return {
        guard finished.wait(timeout: .now() + 60) == .success else { return nil }
        return result.value
    }
}

/// Runs `body` on `count` threads at once and waits for all of them.
func onThreads(_ count: Int, _ body: @Sendable @escaping (Int) -> Void) {
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        Thread.detachNewThread {
            body(i)
            group.leave()
        }
    }
    group.wait()
}

// MARK: - A probe scene that shows exactly which actions reach it

/// "call" emits the effect given as its payload; every other action is kept
/// as `last` (its whole JSON form), so tests can see outcome actions as they arrive.
struct ProbeState: SceneState {
    static let name = "test/probe"

    var last: JSON = .null

    struct Action: SceneAction {
        var action: YaiaKit.Action
        var effect: Effect?

        init(_ action: YaiaKit.Action) throws(YaiaError) {
            self.action = action
            if action.type == "call" {
                effect = try Effect(json: action.payload ?? .null, at: "/payload")
            }
        }
    }

    struct ViewModel: JSONRepresentable, Equatable, Sendable {
        var last: JSON
        var json: JSON { ["last": last] }
    }

    init(args: JSON) throws(YaiaError) {}
    init(json: JSON) throws(YaiaError) { last = json["last"] ?? .null }
    var json: JSON { ["last": last] }
    var viewModel: ViewModel { ViewModel(last: last) }

    mutating func reduce(_ action: Action) -> [Command] {
        if let effect = action.effect { return [.effect(effect)] }
        last = action.action.json
        return []
    }
}

/// The examples plus the probe.
func makeProbeRuntime() -> Runtime {
    Runtime(catalog: SceneCatalog(Examples.sceneTypes + [SceneType(ProbeState.self)]))
}
