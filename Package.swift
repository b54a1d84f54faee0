// swift-tools-version:6.1
import PackageDescription

/// The release build's tuning (scripts/release/build.sh sets
/// FLOWHOST_RELEASE_TUNING=1): compiler and linker flags that SwiftPM
/// accepts only as `unsafeFlags`, which it refuses in a package resolved by
/// version. An ordinary build, and every package that depends on this one,
/// builds the same code without them.
let releaseTuning = Context.environment["FLOWHOST_RELEASE_TUNING"] == "1"

/// A flow library exports its entry symbols only (scripts/release/plugin-exports.map).
let pluginExports: [LinkerSetting] = releaseTuning ? [
    .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/scripts/release/plugin-exports.map"], .when(platforms: [.linux]))
] : []

// Swift's concurrency runtime and the string-processing (regex) library are
// linked by name where they are used. The release build turns their
// automatic linking off everywhere (scripts/release/build.sh), so that
// flowhost, which uses neither, does not load them at every start; a target
// that uses them and is not listed here fails to link, loudly.
let concurrencyRuntime: [LinkerSetting] = [
    .linkedLibrary("swift_Concurrency", .when(platforms: [.linux])),
    .linkedLibrary("swift_StringProcessing", .when(platforms: [.linux])),
    .linkedLibrary("swift_RegexParser", .when(platforms: [.linux])),
]

let package = Package(
    name: "FlowHost",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "flowhost", targets: ["flowhost"]),
        .executable(name: "flowhost-cli", targets: ["flowhost-cli"]),
        // `flowhost inspect`: a local web page that drives hosts by hand.
        .executable(name: "flowhost-inspector", targets: ["flowhost-inspector"]),
        // For Swift apps and tools that spawn flowhost: async/await, typed events.
        .library(name: "FlowHostClient", targets: ["FlowHostClient"]),
        // For flow authors: the Swift SDK a flow is written with, and an
        // embedded host to test it in (docs/writing-a-flow.md).
        .library(name: "FlowHostSDK", targets: ["FlowHostSDK"]),
        .library(name: "FlowHostTesting", targets: ["FlowHostTesting"]),
        // Every service's typed request and outcome, for a flow that calls services.
        .library(name: "FlowHostServiceTypes", targets: ["FlowHostServiceTypes"]),
        // One dynamic library per flow module. The loader looks for
        // `libFlowPlugin*.so` next to the executable by default.
        .library(name: "FlowExampleEchoC", type: .dynamic, targets: ["FlowExampleEchoC"]),
        .library(name: "FlowPluginMFA", type: .dynamic, targets: ["FlowPluginMFA"]),
        .library(name: "FlowPluginStepUp", type: .dynamic, targets: ["FlowPluginStepUp"]),
        .library(name: "FlowPluginDeviceActivation", type: .dynamic, targets: ["FlowPluginDeviceActivation"]),
        .library(name: "FlowPluginLDAToggle", type: .dynamic, targets: ["FlowPluginLDAToggle"]),
        .library(name: "FlowPluginDataSigning", type: .dynamic, targets: ["FlowPluginDataSigning"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // HTTP and WebSocket for the inspector only: small, on plain sockets,
        // no event-loop framework (docs/inspector.md, "The inspector's server").
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
    ],
    targets: [
        // C libraries, wrapped as system-library targets.
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"]), .brew(["jansson"])]
        ),

        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CSodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        // epoll and accept4 (Linux headers Glibc's module leaves out): the change feed's relay.
        .systemLibrary(name: "CEpoll"),
        .systemLibrary(
            name: "CArgon2",
            pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"]), .brew(["argon2"])]
        ),

        // Names and rules shared by the host, the SDK and the tools: the
        // user-id rule, param types and formats, random identifiers.
        .target(name: "FlowHostVocabulary", dependencies: ["FlowJSON", "FlowHostPOSIX"]),

        // POSIX files, environment and errors, without Foundation.
        .target(name: "FlowHostPOSIX"),

        // The one way a child process is started (flowhost_spawn), the
        // isolated child's environment, jansson's wiping free, argv.
        .target(name: "CFlowHostSystem", dependencies: ["CJansson"]),

        // The Swift owner of a started child and its pipes (delivery
        // commands, the demo's host, the inspector's hosts).
        .target(name: "FlowHostChildProcess", dependencies: ["CFlowHostSystem", "FlowHostPOSIX"]),

        // The plugin ABI: the one header plugin authors include.
        .target(name: "CFlowHostABI", dependencies: ["CJansson"]),

        // A flow in a child process behind the same ABI (`--isolate`): the
        // host's proxy descriptor and the child's `flowhost plugin-host`.
        .target(name: "CFlowHostIsolation", dependencies: ["CJansson", "CFlowHostABI", "CFlowHostSystem"]),

        // Swift owner of jansson values; shared by host, RPC layer and SDK.
        // A JSON reader that builds jansson values, about ten times faster than
        // jansson's own; jansson still says why a text is refused.
        .target(name: "CFlowJSON", dependencies: ["CJansson"]),
        .target(name: "FlowJSON", dependencies: ["CJansson", "CFlowJSON", "FlowHostPOSIX"]),

        // Every service's typed request and outcome (`Services.…`), generated
        // from the contract by scripts/contract.py: for the flows that call
        // services, the SDK's own helpers and the host's modules.
        .target(name: "FlowHostServiceTypes", dependencies: ["FlowHostVocabulary", "FlowJSON"]),

        // Line framing, envelope classification, JSON-RPC errors, frame writer.
        .target(name: "JSONRPC", dependencies: ["FlowJSON", "CJansson", "FlowHostPOSIX", "FlowHostVocabulary"]),

        // The host engine: plugin loader, registries, dispatcher, event loop.
        .target(
            name: "FlowHostCore",
            dependencies: [
                "JSONRPC", "FlowJSON", "CFlowHostABI", "CJansson", "CSodium", "FlowHostVocabulary", "FlowHostPOSIX", "CFlowHostIsolation",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // State: users, devices, credentials, codes, sessions, audit, outbox.
        // Protocols plus the SQLite implementation on SQLite's C API.
        // libpq, loaded with dlopen only when a PostgreSQL store is named (the header from libpq-dev).
        .target(name: "CLibPQ", path: "Sources/CLibPQ"),
        // OpenSSL's libcrypto, loaded with dlopen on first use of a P-256 device key (Sources/CLibCrypto).
        .target(name: "CLibCrypto", path: "Sources/CLibCrypto"),
        // An ES256 signature's forms (low s, strict DER), for the devices domain and the Swift client.
        .target(name: "FlowHostES256"),
        // Its one Swift owner per object and its one error, for the devices domain and the Swift client.
        .target(name: "FlowHostLibCrypto", dependencies: ["CLibCrypto"]),
        // Connections, transactions, dialects and the migrator; the domains below own their tables and SQL.
        .target(
            name: "FlowHostStore", dependencies: ["CSQLite", "CLibPQ", "CEpoll", "CSodium", "FlowHostPOSIX"]),

        // The accounts domain: users and the devices registered to them, which the other domains name.
        .target(name: "FlowHostAccounts", dependencies: ["FlowHostStore"]),

        // The audit domain: rows for changes of state, hourly counts for the rest.
        .target(name: "FlowHostAudit", dependencies: ["FlowHostStore", "FlowHostAccounts", "FlowJSON"]),

        // The sessions domain: lifetimes, opening and ending sessions.
        .target(name: "FlowHostSessions", dependencies: ["FlowHostStore", "FlowHostAccounts", "FlowHostAudit", "FlowHostVocabulary", "FlowJSON"]),

        // The devices domain: each device's key (Ed25519), challenges and proofs of possession.
        .target(
            name: "FlowHostDevices",
            dependencies: ["FlowHostStore", "FlowHostAccounts", "FlowHostAudit", "FlowHostVocabulary", "FlowHostPOSIX", "CSodium", "CLibCrypto", "FlowHostES256", "FlowHostLibCrypto", "FlowJSON"]),

        // The notifications domain: messages a user's devices answer once.
        .target(name: "FlowHostNotifications", dependencies: ["FlowHostStore", "FlowHostAccounts", "FlowHostAudit", "FlowHostVocabulary", "FlowHostPOSIX", "FlowJSON"]),

        // The delivery domain: the sealed outbox, and a command run after the commit.
        .target(
            name: "FlowHostDelivery",
            dependencies: ["FlowHostStore", "FlowHostAudit", "FlowHostVocabulary", "FlowHostPOSIX", "CSodium", "FlowHostChildProcess", "FlowJSON"]),

        // Passwords (Argon2id, policy, history), activation codes, attempts,
        // code delivery: the security logic over the store protocols.
        .target(
            name: "FlowHostCredentials",
            dependencies: [
                "FlowHostStore", "FlowHostAccounts", "FlowHostAudit", "FlowHostSessions", "FlowHostDelivery", "FlowHostDevices",
                "FlowHostNotifications", "FlowHostVocabulary", "FlowHostPOSIX", "CArgon2", "CSodium", "FlowJSON",
            ]
        ),

        // The credential and store services offered to flows through the host.
        .target(
            name: "FlowHostServices",
            dependencies: [
                "FlowHostCore", "FlowHostAccounts", "FlowHostCredentials", "FlowHostSessions", "FlowHostAudit", "FlowHostDelivery",
                "FlowHostDevices", "FlowHostNotifications", "FlowHostStore", "FlowJSON", "FlowHostServiceTypes",
            ]
        ),

        // The Swift SDK for plugin authors (linked into each Swift plugin).
        // Its own helpers call services (password.policy, device.createKey,
        // stepup.authenticate) through the generated service types.
        .target(
            name: "FlowHostSDK",
            dependencies: [
                "FlowJSON", "CFlowHostABI", "CJansson", "FlowHostVocabulary", "FlowHostPOSIX", "FlowHostServiceTypes"]),

        // An embedded host for a flow's tests: the real engine, services and
        // store (SQLite, throw-away), a manual clock and a scripted client.
        .target(
            name: "FlowHostTesting",
            dependencies: [
                "FlowHostSDK", "FlowHostCore", "FlowHostServices", "FlowHostCredentials", "FlowHostDelivery", "FlowHostDevices",
                "FlowHostStore", "CFlowHostABI", "FlowJSON", "JSONRPC", "FlowHostPOSIX",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // Starting the host, without swift-argument-parser (or the Foundation
        // it links): the serve command line, the store's location, the flows.
        .target(
            name: "FlowHostLaunch",
            dependencies: [
                "FlowHostCore", "FlowHostServices", "FlowHostCredentials", "FlowHostSessions", "FlowHostDelivery", "FlowHostDevices",
                "FlowHostStore", "CFlowHostSystem", "FlowHostChildProcess", "CFlowHostIsolation", "JSONRPC", "FlowHostPOSIX", "CEpoll",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The host a client spawns: serves a plain serve command line and
        // hands every other one to flowhost-cli beside it.
        .executableTarget(name: "flowhost", dependencies: ["FlowHostLaunch", "FlowHostCore", "CFlowHostIsolation"]),

        // The inspector's server: the page, and one host process per device
        // panel relayed over a WebSocket. Its own executable, so that neither
        // Foundation nor FlyingFox is linked into flowhost or flowhost-cli.
        .executableTarget(
            name: "flowhost-inspector",
            dependencies: [
                // The host's log handler: its lines on stderr are escaped, clipped and never waited on.
                "FlowHostCore", .product(name: "Logging", package: "swift-log"),
                "FlowHostChildProcess", .product(name: "FlyingFox", package: "FlyingFox"),
            ],
            resources: [.copy("Page")],
            linkerSettings: concurrencyRuntime
        ),

        // The whole command line (admin, demo, plugins, help), on swift-argument-parser.
        .executableTarget(
            name: "flowhost-cli",
            dependencies: [
                "FlowHostLaunch",
                "FlowHostCore", "FlowHostServices", "FlowHostCredentials", "FlowHostSessions", "FlowHostDelivery", "FlowHostDevices",
                "FlowHostNotifications", "FlowHostAudit", "FlowHostAccounts", "FlowHostStore",
                "FlowHostChildProcess", "JSONRPC", "FlowHostVocabulary",
                "FlowJSON", "FlowHostPOSIX",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The Swift client (Foundation only: an app needs none of the host's C
        // libraries). On Linux its software P-256 keys use libcrypto, loaded on
        // first use; Apple platforms have CryptoKit.
        .target(
            name: "FlowHostClient",
            dependencies: [
                "FlowHostES256",
                .target(name: "CLibCrypto", condition: .when(platforms: [.linux])),
                .target(name: "FlowHostLibCrypto", condition: .when(platforms: [.linux])),
            ],
            linkerSettings: concurrencyRuntime),

        // Flow modules: each links the SDK and the service types.
        .target(name: "FlowExampleEchoC", dependencies: ["CFlowHostABI", "CJansson"], path: "Plugins/EchoC"),
        .target(name: "FlowPluginMFA", dependencies: ["FlowHostSDK", "FlowJSON", "FlowHostServiceTypes"], path: "Plugins/MFA", linkerSettings: pluginExports),
        .target(name: "FlowPluginStepUp", dependencies: ["FlowHostSDK", "FlowJSON", "FlowHostServiceTypes"], path: "Plugins/StepUp", linkerSettings: pluginExports),
        .target(name: "FlowPluginDeviceActivation", dependencies: ["FlowHostSDK", "FlowJSON", "FlowHostServiceTypes"], path: "Plugins/DeviceActivation", linkerSettings: pluginExports),
        .target(name: "FlowPluginLDAToggle", dependencies: ["FlowHostSDK", "FlowJSON", "FlowHostServiceTypes"], path: "Plugins/LDAToggle", linkerSettings: pluginExports),
        .target(name: "FlowPluginDataSigning", dependencies: ["FlowHostSDK", "FlowJSON", "FlowHostServiceTypes"], path: "Plugins/DataSigning", linkerSettings: pluginExports),

        // Unit tests, and what they share.
        .target(name: "TestSupport", dependencies: ["FlowHostStore", "FlowHostPOSIX"], path: "Tests/TestSupport"),
        // Fuzz targets (Tests/Fuzz): built with -sanitize=fuzzer and -DFUZZING
        // by scripts/fuzz.sh; built plainly they replay files, so the corpus
        // and every crash found run as regression tests.
        .target(name: "FuzzSupport", path: "Tests/Fuzz/Support"),
        .executableTarget(name: "fuzz-frames", dependencies: ["FuzzSupport", "JSONRPC", "FlowJSON"], path: "Tests/Fuzz/Frames"),
        .executableTarget(name: "fuzz-json", dependencies: ["FuzzSupport", "FlowJSON", "CFlowJSON", "CJansson"], path: "Tests/Fuzz/JSON"),
        .executableTarget(name: "fuzz-po", dependencies: ["FuzzSupport", "FlowHostVocabulary"], path: "Tests/Fuzz/PO"),
        .executableTarget(
            name: "fuzz-device-input", dependencies: ["FuzzSupport", "FlowHostDevices", "FlowHostES256", "FlowHostPOSIX", "FlowJSON"],
            path: "Tests/Fuzz/DeviceInput"),
        .executableTarget(
            name: "fuzz-dispatch",
            dependencies: [
                "FuzzSupport", "FlowHostCore", "FlowHostServices", "FlowHostCredentials", "FlowHostDelivery", "FlowHostDevices", "FlowHostPOSIX", "FlowHostStore",
                "FlowJSON", "JSONRPC", .product(name: "Logging", package: "swift-log"),
            ], path: "Tests/Fuzz/Dispatch"),
        .testTarget(name: "JSONRPCTests", dependencies: ["JSONRPC", "FlowJSON", "TestSupport"]),
        .testTarget(name: "FlowHostStoreTests", dependencies: ["FlowHostStore", "FlowHostPOSIX", "TestSupport"]),
        .testTarget(name: "FlowHostPOSIXTests", dependencies: ["FlowHostPOSIX", "TestSupport"]),
        .testTarget(name: "FlowHostChildProcessTests", dependencies: ["FlowHostChildProcess", "FlowHostPOSIX"]),
        .testTarget(name: "FlowHostVocabularyTests", dependencies: ["FlowHostVocabulary"]),
        .testTarget(name: "FlowJSONTests", dependencies: ["FlowJSON", "CFlowJSON", "CJansson", "TestSupport"]),
        .testTarget(name: "FlowHostAccountsTests", dependencies: ["FlowHostAccounts", "FlowHostStore", "TestSupport"]),
        .testTarget(name: "FlowHostAuditTests", dependencies: ["FlowHostAudit", "FlowHostAccounts", "FlowHostStore", "FlowHostPOSIX", "TestSupport"]),
        .testTarget(name: "FlowHostNotificationsTests", dependencies: ["FlowHostNotifications", "FlowHostAccounts", "FlowHostAudit", "FlowHostStore", "FlowJSON", "TestSupport"]),
        .testTarget(name: "FlowHostSessionsTests", dependencies: ["FlowHostSessions", "FlowHostAccounts", "FlowHostAudit", "FlowHostStore", "FlowJSON", "TestSupport"]),
        .testTarget(
            name: "FlowHostCredentialsTests",
            dependencies: [
                "FlowHostCredentials", "FlowHostAccounts", "FlowHostAudit", "FlowHostSessions", "FlowHostDelivery", "FlowHostDevices",
                "FlowHostNotifications", "FlowHostVocabulary", "FlowHostStore", "FlowJSON", "TestSupport",
            ]),
        .testTarget(name: "FlowHostDevicesTests", dependencies: ["FlowHostDevices", "FlowHostAccounts", "FlowHostAudit", "FlowHostStore", "FlowJSON", "FlowHostPOSIX", "TestSupport"]),
        // FlowHostDevices: the host's own P-256 verifier checks the client's signatures.
        .testTarget(name: "FlowHostClientTests", dependencies: ["FlowHostClient", "FlowHostDevices", "FlowHostES256"]),
        // The fast serve command line against swift-argument-parser's, option for option.
        .testTarget(name: "FlowHostLaunchTests", dependencies: ["FlowHostLaunch", "flowhost-cli"]),
        .testTarget(name: "FlowHostInspectorTests", dependencies: ["flowhost-inspector"]),
        .testTarget(name: "FlowHostTestingTests", dependencies: ["FlowHostTesting"]),
        .testTarget(
            name: "FlowHostServicesTests",
            dependencies: [
                "FlowHostServices", "FlowHostCore", "FlowHostAccounts", "FlowHostCredentials", "FlowHostDelivery", "FlowHostDevices",
                "FlowHostStore", "JSONRPC", "FlowHostServiceTypes", "FlowHostPOSIX", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "FlowHostCoreTests", dependencies: ["FlowHostCore", "FlowHostSDK", "JSONRPC", "FlowJSON", "TestSupport", "CFlowHostSystem", "FlowHostPOSIX"]),
    ]
)

// Swift code reaches the concrete generic types it names (`[String: JSON]`,
// `Result<String, PluginRefusal>`) through metadata accessors, not by
// demangling each type's name at its first use: a start meets some hundred
// such types in the host and in every flow library, and each first
// demangling, with its conformance lookups across every loaded image, cost
// more than an accessor's code (docs/performance.md, "The start path").
for target in package.targets where releaseTuning && target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])
    ]
}

// Neither what a flow library carries (its own code, the SDK and the modules
// under it) nor the host's own modules import `_Concurrency` or
// `_StringProcessing` unless they say so: none of them uses either, and
// each library an image names is one more the dynamic linker loads at every
// start or `dlopen` (docs/performance.md, "The start path"). The release
// build holds every module to it (an ordinary one imports them as Swift
// does by default), and with its flags flowhost loads neither library, nor
// libdispatch under them: swift-log, built as it comes, is the one module
// that imports them, and what it uses of them is dropped at link.
// The built-in flows are the targets under Plugins/ (a flow added there is
// covered without being named here); the SDK's and the host's modules are
// listed.
let sdkModules: Set<String> = ["FlowHostSDK", "FlowJSON", "FlowHostVocabulary", "FlowHostPOSIX", "FlowHostServiceTypes"]
let hostModules: Set<String> = [
    "flowhost", "FlowHostLaunch", "FlowHostCore", "FlowHostServices", "FlowHostAccounts", "FlowHostAudit",
    "FlowHostCredentials", "FlowHostDelivery", "FlowHostDevices", "FlowHostNotifications", "FlowHostSessions",
    "FlowHostStore", "FlowHostChildProcess", "JSONRPC",
]
for target in package.targets
where releaseTuning && (sdkModules.contains(target.name) || hostModules.contains(target.name) || (target.path?.hasPrefix("Plugins/") ?? false)) {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .unsafeFlags([
            "-Xfrontend", "-disable-implicit-concurrency-module-import",
            "-Xfrontend", "-disable-implicit-string-processing-module-import",
        ])
    ]
}
