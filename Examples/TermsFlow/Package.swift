// swift-tools-version:6.1
// A flow written outside FlowHost's own package: the `terms` flow of
// docs/writing-a-flow.md. It depends on FlowHost by path (../.. here;
// FLOWHOST_PACKAGE names another checkout) for the SDK and the test host.
import Foundation
import PackageDescription

let flowhost = ProcessInfo.processInfo.environment["FLOWHOST_PACKAGE"]
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL.path
// A package named by path is known by its folder's name.
let flowhostIdentity = URL(fileURLWithPath: flowhost).lastPathComponent

let package = Package(
    name: "TermsFlow",
    products: [
        // What the host loads: flowhost --plugins <folder of libTermsFlow.so>.
        .library(name: "TermsFlow", type: .dynamic, targets: ["TermsFlow"]),
    ],
    dependencies: [
        .package(path: flowhost),
    ],
    targets: [
        .target(
            name: "TermsFlow",
            dependencies: [
                .product(name: "FlowHostSDK", package: flowhostIdentity),
                // The typed records.* calls (Services.RecordsGet, …).
                .product(name: "FlowHostServiceTypes", package: flowhostIdentity),
            ]),
        .testTarget(
            name: "TermsFlowTests",
            dependencies: ["TermsFlow", .product(name: "FlowHostTesting", package: flowhostIdentity)]),
    ]
)
