// swift-tools-version:6.0
import PackageDescription

// A scene pack as its own package: the scenes (Notes), the entry point that
// exports them (NotesPack, built into libnotes.so) and their value tests.
let package = Package(
    name: "notes",
    products: [
        .library(name: "notes", type: .dynamic, targets: ["NotesPack"]),
    ],
    dependencies: [
        .package(name: "Yaia", path: "../.."),
    ],
    targets: [
        .target(name: "Notes", dependencies: [.product(name: "YaiaKit", package: "Yaia")]),
        // The pack exports yaia_scene_pack_init and nothing else; its own
        // copy of the Swift runtime stays local to it.
        .target(
            name: "NotesPack",
            dependencies: ["Notes"],
            exclude: ["notes.map"],
            linkerSettings: [
                .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/NotesPack/notes.map"]),
            ]
        ),
        .testTarget(name: "NotesTests", dependencies: ["Notes", .product(name: "YaiaTesting", package: "Yaia")]),
    ]
)
