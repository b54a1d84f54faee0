// swift-tools-version:6.1
// The benchmark: its own package, so `swift test` in the main package never
// builds or runs it. It spawns the release build of flowhost and a reference
// server in C that it compiles itself, and measures both in one run.
import PackageDescription

let package = Package(
    name: "FlowHostBenchmarks",
    targets: [
        .systemLibrary(name: "CArgon2Bench", path: "Sources/CArgon2Bench", pkgConfig: "libargon2"),
        .systemLibrary(name: "CSodiumBench", path: "Sources/CSodiumBench", pkgConfig: "libsodium"),
        .target(name: "CBenchSupport"),
        .target(name: "CBenchP256", linkerSettings: [.linkedLibrary("crypto")]),
        .executableTarget(name: "flowhost-bench", dependencies: ["CBenchSupport", "CBenchP256", "CArgon2Bench", "CSodiumBench"]),
    ],
    // Swift 5 mode: the driver deliberately shares a Server between a writer
    // thread (the write end of one pipe) and the reader (the read end of
    // another), which strict concurrency checking cannot express.
    swiftLanguageModes: [.v5]
)
