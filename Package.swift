// swift-tools-version: 6.2
// (6.2: the sources use `SendableMetatype`, new in Swift 6.2.)
//
// KVOGuard: a portable key-value observing runtime, an observation guard that turns observer mistakes into
// log lines, and a seeded fault injector that proves both under concurrency. No external packages.

import PackageDescription

let package = Package(
    name: "KVOGuard",
    platforms: [
        // The Swift concurrency baseline. Atomics come from the package's own C target (GuardCoreAtomics), not the
        // Synchronization module, which needs iOS 18 / macOS 15. GuardCore's own runtime (KVOObject) reads stored
        // properties through the Swift runtime's reflection entry points, present from iOS 13.4 / macOS 10.15.4 /
        // tvOS 13.4 / watchOS 6.2 (looked up there, linked by name elsewhere, so static Linux builds have them);
        // below that no stored property is a key, which the process says once on standard error and as the misuse
        // reflectionUnavailable, while guarding NSObject works from the floor.
        .macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6), .visionOS(.v1),
    ],
    products: [
        .library(name: "GuardCore", targets: ["GuardCore"]),
        .library(name: "FaultInjector", targets: ["FaultInjector"]),
        .library(name: "FaultInjectorTools", targets: ["FaultInjectorTools"]),
        .executable(name: "guard-stress", targets: ["guard-stress"]),
    ],
    targets: [
        .target(name: "GuardCoreAtomics"),
        .target(name: "GuardCore", dependencies: ["GuardCoreAtomics"]),
        // The embeddable harness: scenarios, runners and strategies, histories, the oracle, seed files, replay,
        // campaigns and exploration.
        .target(name: "FaultInjector", dependencies: ["GuardCore"]),
        // The tools around the harness: shrinking, explaining, the planted-bug kill matrix, and the JSON and JUnit
        // reports (with the rules for writing them).
        .target(name: "FaultInjectorTools", dependencies: ["FaultInjector", "GuardCore"]),
        // Heap and resident-memory counters for `guard-stress bench` (C: glibc's mallinfo2, Darwin's task_info).
        .target(name: "ProcessMemory"),
        .executableTarget(
            name: "guard-stress", dependencies: ["GuardCore", "FaultInjector", "FaultInjectorTools", "ProcessMemory"]),
        // GuardCoreTests runs its concurrency storm through FaultInjector (checked by the oracle).
        .testTarget(name: "GuardCoreTests", dependencies: ["GuardCore", "FaultInjector"]),
        // Helpers both FaultInjector test targets use (temporary directories, fixture seed files, running
        // guard-stress); no tests of its own.
        .testTarget(name: "FaultInjectorTestSupport", dependencies: ["FaultInjector", "GuardCore"]),
        .testTarget(name: "FaultInjectorTests", dependencies: ["FaultInjector", "GuardCore", "FaultInjectorTestSupport"]),
        // The tools' tests, and those of the command line built on them.
        .testTarget(
            name: "FaultInjectorToolsTests",
            dependencies: ["FaultInjectorTools", "FaultInjector", "GuardCore", "FaultInjectorTestSupport"]
        ),
        .testTarget(
            name: "StressTests",
            dependencies: ["FaultInjector", "FaultInjectorTools", "GuardCore"],
            resources: [.copy("Seeds"), .copy("Scenarios")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
