// swift-tools-version:6.0
import PackageDescription

// libyaia.so exports only yaia_* (version script), carries a SONAME and is
// linked -z nodelete so that a host which dlcloses it cannot unmap Swift code
// that other threads may still be running.
let exportFlags: [LinkerSetting] = [
    .unsafeFlags([
        "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/YaiaABI/yaia.map",
        "-Xlinker", "-soname=libyaia.so.1",
        "-Xlinker", "-z", "-Xlinker", "nodelete",
    ])
]

// Shared state in the runtime is guarded by locks; Swift's dynamic
// exclusivity checks would add a runtime call to every class-property access
// on the hot paths.
let unchecked: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"])]

let package = Package(
    name: "Yaia",
    products: [
        .library(name: "yaia", type: .dynamic, targets: ["YaiaABI"]),
        .executable(name: "yaia-cli", targets: ["yaia"]),
    ],
    targets: [
        // The hand-written headers in Include/ seen from Swift.
        .target(name: "CYaia", path: "Sources/CYaia", linkerSettings: [.linkedLibrary("ffi")]),
        .target(name: "YaiaCore", swiftSettings: unchecked),
        .target(name: "YaiaExamples", dependencies: ["YaiaCore"], swiftSettings: unchecked),
        .target(name: "YaiaRuntime", dependencies: ["YaiaCore", "CYaia"], swiftSettings: unchecked),
        .target(
            name: "YaiaABI",
            dependencies: ["YaiaRuntime", "YaiaExamples", "CYaia"],
            exclude: ["yaia.map"],
            swiftSettings: unchecked,
            linkerSettings: exportFlags
        ),
        // The command line, a host of the C ABI like any other.
        .executableTarget(name: "yaia", dependencies: ["YaiaABI", "CYaia"]),
        .testTarget(name: "YaiaCoreTests", dependencies: ["YaiaCore", "YaiaExamples"]),
        .testTarget(name: "YaiaRuntimeTests", dependencies: ["YaiaRuntime", "YaiaExamples"]),
    ]
)
