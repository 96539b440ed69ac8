// The files `yaia new pack NAME` writes: a Swift package that builds into
// a scene pack as it is, with one scene that shows a state, a view model,
// actions, an effect and a route, and its value tests.

/// The names a pack called `name` is built from.
struct PackNames {
    /// The package and product: libNAME.so.
    let name: String
    /// NAME in upper camel case ("my-shop" -> "MyShop"), for module names.
    let module: String
    /// The folder of Yaia's Package.swift, absolute.
    let yaia: String

    var scenes: String { module + "Scenes" }
    var pack: String { module + "Pack" }
    var tests: String { module + "ScenesTests" }
    var scene: String { name + "/counter" }
    var library: String { "lib\(name).so" }

    init(name: String, yaia: String) {
        self.name = name
        self.yaia = yaia
        var module = ""
        var upper = true
        for c in name {
            if c == "-" || c == "_" {
                upper = true
            } else {
                module += upper ? c.uppercased() : String(c)
                upper = false
            }
        }
        self.module = module
    }
}

/// A Swift string literal's content for `text`.
func swiftLiteral(_ text: String) -> String {
    var out = ""
    for c in text.unicodeScalars {
        switch c {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default: out.unicodeScalars.append(c)
        }
    }
    return out
}

/// The package's files, by path relative to its folder, in the order written.
func packFiles(_ n: PackNames) -> [(path: String, text: String)] {
    [
        ("Package.swift", packageManifest(n)),
        ("Sources/\(n.scenes)/Counter.swift", counterScene(n)),
        ("Sources/\(n.pack)/Pack.swift", packEntry(n)),
        ("Sources/\(n.pack)/pack.map", packMap),
        ("Tests/\(n.tests)/CounterTests.swift", counterTests(n)),
        (".gitignore", ".build/\n.swiftpm/\nPackage.resolved\n"),
        ("README.md", readme(n)),
    ]
}

func packageManifest(_ n: PackNames) -> String {
    #"""
    // swift-tools-version:6.0
    import PackageDescription

    // The scene pack \#(n.name): its scenes (\#(n.scenes)), the entry point that
    // exports them (\#(n.pack), built into \#(n.library)) and the scenes' value
    // tests (\#(n.tests)).
    let package = Package(
        name: "\#(n.name)",
        products: [
            .library(name: "\#(n.name)", type: .dynamic, targets: ["\#(n.pack)"]),
        ],
        dependencies: [
            // Yaia by path. `name:` lets the products below say "Yaia" whatever
            // its folder is called.
            .package(name: "Yaia", path: "\#(swiftLiteral(n.yaia))"),
        ],
        targets: [
            // The scenes import YaiaKit alone.
            .target(name: "\#(n.scenes)", dependencies: [.product(name: "YaiaKit", package: "Yaia")]),
            // The pack exports yaia_scene_pack_init and nothing else (pack.map):
            // its own copy of the Swift runtime stays local to it. A release
            // build carries no symbol table or debug info (-s) and folds
            // identical functions (--icf=safe): about 8 MB instead of 13.
            .target(
                name: "\#(n.pack)",
                dependencies: ["\#(n.scenes)"],
                exclude: ["pack.map"],
                linkerSettings: [
                    .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/\#(n.pack)/pack.map"]),
                    .unsafeFlags(["-Xlinker", "-s", "-Xlinker", "--icf=safe"], .when(configuration: .release)),
                ]
            ),
            .testTarget(name: "\#(n.tests)", dependencies: ["\#(n.scenes)", .product(name: "YaiaTesting", package: "Yaia")]),
        ]
    )

    """#
}

func counterScene(_ n: PackNames) -> String {
    #"""
    import YaiaKit

    /// \#(n.scene): a count that moves by a step. Besides the new state, a
    /// reducer returns commands, as data: most actions return none, `save`
    /// returns an effect (the `store` service is asked to keep the count) and
    /// `done` a route (the scene closes, handing the count to the one below).
    ///
    /// The JSON forms come from Codable: the state's (snapshots, journals, the
    /// "state" request), the view model's (what a UI renders) and the actions'
    /// (`{"type": "add", "payload": 5}`).
    public struct CounterState: SceneState, Codable {
        /// The scene type's name in a runtime's catalog.
        public static let name = "\#(n.scene)"

        public var count = 0
        public var step = 1
        /// The count being saved, until the store answers.
        public var saving: Int?
        /// The count the store last confirmed.
        public var saved: Int?
        /// Why the last action did not do what it was sent for.
        public var error: String?

        public init() {}

        /// Open arguments, all optional: `{"start": 10, "step": 5}`.
        public struct Args: Decodable, Sendable {
            public var start: Int?
            public var step: Int?
        }

        public init(args: JSON) throws(YaiaError) {
            let args = try args.decode(Args.self, code: .badArgs)
            count = args.start ?? 0
            step = args.step ?? 1
            guard (1...1_000_000).contains(step) else {
                throw YaiaError(.badArgs, "step must be from 1 to 1000000", at: "/step")
            }
        }

        /// An action's type names the case; a single unlabeled value is the
        /// whole payload, labeled values are members of an object payload.
        /// Anything else is refused with `unknown_action` or `bad_payload`.
        public enum Action: SceneAction, Decodable, Equatable {
            case increment                      // {"type": "increment"}
            case decrement
            case add(Int)                       // {"type": "add", "payload": 5}
            case save
            case saved                          // store.put's result (its payload is not needed)
            case saveFailed(message: String?)   // store.put's error: {"message": "..."}
            case done
        }

        /// What a UI renders.
        public struct ViewModel: JSONRepresentable, Encodable, Equatable, Sendable {
            public var count: Int
            public var canSave: Bool
            public var status: String?
        }

        /// A pure function of the state.
        public var viewModel: ViewModel {
            let status: String? =
                if let error { error }
                else if let saving { "Saving \(saving)" }
                else if let saved { "Saved \(saved)" }
                else { nil }
            return ViewModel(count: count, canSave: saving == nil && saved != count, status: status)
        }

        /// Pure: no IO, no clock, no randomness. IO leaves as an effect, whose
        /// outcome comes back as its `then` or `catch` action.
        public mutating func reduce(_ action: Action) -> [Command] {
            switch action {
            case .increment:
                move(by: step)
                return []
            case .decrement:
                move(by: -step)
                return []
            case .add(let n):
                move(by: n)
                return []
            case .save:
                guard saving == nil else { return [] }  // one save at a time
                saving = count
                error = nil
                return [.effect(Effect(service: "store", op: "put",
                                       args: ["key": JSON(Self.name), "value": JSON(count)],
                                       then: "saved", catch: "saveFailed", options: .init(timeout: 5)))]
            case .saved:
                saved = saving
                saving = nil
                return []
            case .saveFailed(let message):
                // A time-out comes as {"code": "timeout"}: no message.
                saving = nil
                error = "Not saved: " + (message ?? "the store did not answer")
                return []
            case .done:
                return [.route(.pop(result: ["count": JSON(count)]))]
            }
        }

        /// Refuses a move beyond Int's range instead of trapping: a reducer
        /// must not crash its host, whatever it is sent.
        mutating func move(by n: Int) {
            let (sum, overflow) = count.addingReportingOverflow(n)
            if overflow {
                error = "The count is out of range"
            } else {
                count = sum
                error = nil
            }
        }
    }

    """#
}

func packEntry(_ n: PackNames) -> String {
    #"""
    // \#(n.library): the scenes of this package as a scene pack. This is its one
    // export; a runtime loads it with {"scenes": [".../\#(n.library)"]}.
    import \#(n.scenes)
    import YaiaKit

    @_cdecl("yaia_scene_pack_init")
    public func yaiaScenePackInit(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
        ScenePack.export(name: "\#(n.name)", version: "0.1.0", [CounterState.self], host: host)
    }

    """#
}

let packMap = """
    /* A scene pack exports its entry point; its own Swift runtime stays local. */
    {
      global: yaia_scene_pack_init;
      local: *;
    };

    """

func counterTests(_ n: PackNames) -> String {
    #"""
    // Value tests: no runtime, no services, no threads. SceneTest reduces each
    // action, asserts the whole new state, and holds every effect until the
    // test resolves it with the outcome a service would give.
    import Testing
    import YaiaKit
    import YaiaTesting
    @testable import \#(n.scenes)

    @Suite("\#(n.scene)")
    struct CounterTests {
        @Test("counts by its step")
        func counts() throws {
            var test = try SceneTest(CounterState.self, args: ["start": 10, "step": 5])
            test.send(.increment) { $0.count = 15 }
            test.send(.decrement) { $0.count = 10 }
            // An action in its JSON form, read as the runtime reads it.
            test.send("add", payload: 32) { $0.count = 42 }
            test.expectViewModel(.init(count: 42, canSave: true, status: nil))
            test.finish()
        }

        @Test("save asks the store to keep the count")
        func saves() {
            var test = SceneTest(CounterState())
            test.send(.add(3)) { $0.count = 3 }
            test.send(.save) { $0.saving = 3 }
            let put = test.receiveEffect(Effect(service: "store", op: "put", args: ["key": "\#(n.scene)", "value": 3],
                                                then: "saved", catch: "saveFailed", options: .init(timeout: 5)))
            test.expectViewModel(.init(count: 3, canSave: false, status: "Saving 3"))
            test.send(.save)  // one save at a time: no change, no effect
            test.resolve(put, with: .success(["key": "\#(n.scene)"])) {
                $0.saving = nil
                $0.saved = 3
            }
            test.expectViewModel(.init(count: 3, canSave: false, status: "Saved 3"))
            test.finish()
        }

        @Test("a failed save says why")
        func saveFails() {
            var test = SceneTest(CounterState())
            test.send(.save) { $0.saving = 0 }
            let put = test.receiveEffect(service: "store", op: "put")
            test.resolve(put, with: .failure(["code": "timeout"])) {
                $0.saving = nil
                $0.error = "Not saved: the store did not answer"
            }
            test.finish()
        }

        @Test("done closes the scene with the count")
        func done() {
            var test = SceneTest(CounterState())
            test.send(.increment) { $0.count = 1 }
            test.send(.done)
            test.expectRoute(.pop(result: ["count": 1]))
            test.finish()
        }

        @Test("what it cannot use is refused with an error, never a crash")
        func refusals() throws {
            let badStep = #expect(throws: YaiaError.self) { try CounterState(args: ["step": 0]) }
            #expect(badStep?.code == .badArgs)
            #expect(badStep?.at == "/step")
            let badPayload = #expect(throws: YaiaError.self) { try CounterState.Action(Action("add", payload: "five")) }
            #expect(badPayload?.code == .badPayload)
            #expect(badPayload?.at == "/payload")
            let unknown = #expect(throws: YaiaError.self) { try CounterState.Action(Action("reset")) }
            #expect(unknown?.code == .unknownAction)

            var test = try SceneTest(CounterState.self, args: ["start": JSON(Int.max)])
            test.send(.increment) { $0.error = "The count is out of range" }
            test.finish()
        }

        @Test("the state survives its JSON form (snapshots and journals rely on it)")
        func snapshot() throws {
            var state = CounterState()
            state.count = 7
            state.saved = 5
            #expect(state.json == ["count": 7, "step": 1, "saving": .null, "saved": 5, "error": .null])
            #expect(try CounterState(json: state.json) == state)
        }
    }

    """#
}

func readme(_ n: PackNames) -> String {
    #"""
    # \#(n.name): a Yaia scene pack

    The scene `\#(n.scene)` (`Sources/\#(n.scenes)/Counter.swift`): a count that
    moves by a step, `save` asks the `store` service to keep it (an effect),
    `done` closes the scene with it (a route). Its tests are in
    `Tests/\#(n.tests)`. Add scenes next to it and list them in
    `Sources/\#(n.pack)/Pack.swift`.

    Build the pack (`.build/release/\#(n.library)`) and run the tests:

    ```sh
    swift build -c release -Xswiftc -static-stdlib
    swift test --disable-xctest
    ```

    Drive it from Python: save this as `drive.py` and run it with the binding of
    the Yaia this package depends on,
    `PYTHONPATH=\#(n.yaia)/Bindings/python python3 drive.py`:

    ```python
    import yaia
    with yaia.Runtime(scenes=[".build/release/\#(n.library)"]) as rt:
        counter = rt.open("\#(n.scene)", {"step": 2})
        counter.send("increment")
        print(counter.send("add", 40).view_model)  # {'canSave': True, 'count': 42, 'status': None}
    ```

    Yaia is at `\#(n.yaia)`; its `docs/scenes.md` explains all of this.

    """#
}
