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

// A scene pack exports its entry point and nothing else.
let packFlags: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/YaiaExamplesPack/pack.map"])
]

// Shared state in the runtime is guarded by locks; Swift's dynamic
// exclusivity checks would add a runtime call to every class-property access
// on the hot paths. The products scene authors depend on (YaiaKit,
// YaiaTesting) carry no unsafe flags, so that a package can depend on them by
// URL; the Makefile turns the checks off for the whole release build instead.
let unchecked: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"])]

let package = Package(
    name: "Yaia",
    products: [
        // For scene authors: everything a scene is written with, and no more.
        .library(name: "YaiaKit", targets: ["YaiaKit"]),
        // For scene authors' tests: SceneTest, an exhaustive test store.
        .library(name: "YaiaTesting", targets: ["YaiaTesting"]),
        // libyaia.so: the runtime behind the C ABI of Include/yaia.h.
        .library(name: "yaia", type: .dynamic, targets: ["YaiaABI"]),
        // The example scenes as a scene pack (libyaia-examples.so).
        .library(name: "yaia-examples", type: .dynamic, targets: ["YaiaExamplesPack"]),
        // The `yaia` command. SwiftPM builds one product per name, and "yaia"
        // is the library's: the Makefile puts this one at .build/release/yaia.
        .executable(name: "yaia-command", targets: ["YaiaCLI"]),
    ],
    // None: a scene pack that depends on this package resolves nothing else
    // (the `yaia` command reads its arguments by hand, Sources/yaia/Arguments.swift).
    targets: [
        // The hand-written headers in Include/ seen from Swift, and libffi.
        .target(name: "CYaia", path: "Sources/CYaia", linkerSettings: [.linkedLibrary("ffi")]),
        // Include/yaia_scene.h alone: what a scene pack is built against.
        .target(name: "CYaiaScene", path: "Sources/CYaiaScene"),
        // What a scene is written with: JSON values and their coders, actions,
        // commands, effects, routes, the scene protocol, errors and ScenePack,
        // which turns scene types into a loadable scene pack. Scene authors
        // import this module alone; what the rest of this package needs from
        // it beyond that is `package`, not `public`.
        .target(name: "YaiaKit", dependencies: ["CYaiaScene"]),
        // The logic engine, scene documents, scenarios, the runtime's state.
        .target(name: "YaiaCore", dependencies: ["YaiaKit"]),
        .target(name: "YaiaTesting", dependencies: ["YaiaKit"]),
        .target(name: "YaiaExamples", dependencies: ["YaiaKit"]),
        .target(name: "YaiaExamplesPack", dependencies: ["YaiaExamples"], exclude: ["pack.map"], linkerSettings: packFlags),
        .target(name: "YaiaRuntime", dependencies: ["YaiaCore", "YaiaKit", "CYaia", "CYaiaScene"], swiftSettings: unchecked),
        .target(
            name: "YaiaABI",
            dependencies: ["YaiaRuntime", "YaiaKit", "CYaia"],
            exclude: ["yaia.map"],
            swiftSettings: unchecked,
            linkerSettings: exportFlags
        ),
        // The command line, a host of the C ABI like any other (YaiaKit for its JSON values).
        .executableTarget(
            name: "YaiaCLI",
            dependencies: ["YaiaABI", "CYaia", "YaiaCore", "YaiaKit", "YaiaRuntime"],
            path: "Sources/yaia"
        ),
        // JSON Logic in the engine, timed by `make bench`.
        .executableTarget(name: "YaiaBenchLogic", dependencies: ["YaiaCore", "YaiaKit", "YaiaRuntime"], path: "Benchmarks/logic"),
        // The paths kept for speed against their general paths, timed by `make bench`.
        .executableTarget(name: "YaiaBenchPaths", dependencies: ["YaiaABI", "CYaia", "YaiaCore", "YaiaKit", "YaiaRuntime"], path: "Benchmarks/paths"),
        .testTarget(name: "YaiaCoreTests", dependencies: ["YaiaCore", "YaiaKit", "YaiaExamples"]),
        .testTarget(name: "YaiaRuntimeTests", dependencies: ["YaiaRuntime", "YaiaExamples", "YaiaKit", "CYaiaScene"]),
        .testTarget(name: "YaiaTestingTests", dependencies: ["YaiaTesting", "YaiaExamples", "YaiaKit"]),
    ]
)
