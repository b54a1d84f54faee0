// swift-tools-version:6.1
// A flow written outside FlowHost's own package: the `terms` flow of
// docs/writing-a-flow.md. It depends on FlowHost as any package depends on
// another, by URL and version, for the SDK and the test host.
// scripts/examples.sh resolves that URL to this checkout, packaged as the
// version it is, through a SwiftPM mirror.
import PackageDescription

let package = Package(
    name: "TermsFlow",
    products: [
        // What the host loads: flowhost --plugins <folder of libTermsFlow.so>.
        .library(name: "TermsFlow", type: .dynamic, targets: ["TermsFlow"]),
    ],
    dependencies: [
        .package(url: "https://github.com/flowhost/flowhost.git", from: "0.1.0"),
    ],
    targets: [
        .target(
            name: "TermsFlow",
            dependencies: [
                .product(name: "FlowHostSDK", package: "flowhost"),
                // The typed records.* calls (Services.RecordsGet, …).
                .product(name: "FlowHostServiceTypes", package: "flowhost"),
            ]),
        .testTarget(
            name: "TermsFlowTests",
            dependencies: ["TermsFlow", .product(name: "FlowHostTesting", package: "flowhost")]),
    ]
)
