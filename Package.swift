// swift-tools-version: 6.0
//
// KVOGuard: a portable key-value observing runtime, an observation guard that turns observer mistakes into
// log lines, and a seeded fault injector that proves both under concurrency. No external packages.

import PackageDescription

let package = Package(
    name: "KVOGuard",
    platforms: [
        // The runtime's lock-free fast paths use the toolchain's Synchronization module.
        .macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2),
    ],
    products: [
        .library(name: "GuardCore", targets: ["GuardCore"]),
        .library(name: "FaultInjector", targets: ["FaultInjector"]),
        .executable(name: "guard-stress", targets: ["guard-stress"]),
    ],
    targets: [
        .target(name: "GuardCore"),
        .target(name: "FaultInjector", dependencies: ["GuardCore"]),
        .executableTarget(name: "guard-stress", dependencies: ["GuardCore", "FaultInjector"]),
        .testTarget(name: "GuardCoreTests", dependencies: ["GuardCore"]),
        .testTarget(name: "FaultInjectorTests", dependencies: ["FaultInjector", "GuardCore"]),
        .testTarget(
            name: "StressTests",
            dependencies: ["FaultInjector", "GuardCore"],
            resources: [.copy("Seeds")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
