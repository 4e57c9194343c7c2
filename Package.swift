// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "presentation-server",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "presentation-server", targets: ["PresentationServer"]),
        .executable(name: "api-bench", targets: ["APIBench"]),
        // For the fuzz targets in Fuzz/, a package of their own: they need compiler flags this one must not get.
        .library(name: "FuzzChecks", targets: ["SessionChecks", "APIChecks"]),
    ],
    targets: [
        // libmicrohttpd exactly as its header declares it, plus shims for what Swift cannot call
        // (variadic functions) or reads more safely through one (the info unions).
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // A generic HTTP/1.1 server over libmicrohttpd; knows nothing of sessions.
        .target(name: "MicroHTTP", dependencies: ["CMicroHTTPD"], swiftSettings: strict),
        // JSON values, a strict parser and a compact writer; knows nothing of sessions or HTTP.
        .target(name: "JSON", swiftSettings: strict),
        // The domain: sessions, stacks, screens, presentations, results, events. No HTTP.
        .target(name: "Presentation", dependencies: ["JSON"], swiftSettings: strict),
        // SQLite exactly as its header declares it, plus the two shims Swift needs.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Durable sessions: the store's journal in an SQLite file, written by group commit.
        .target(name: "SessionStorage", dependencies: ["Presentation", "JSON", "CSQLite"], swiftSettings: strict),
        // Routes, JSON on the wire, problem details: maps HTTP onto the domain.
        .target(name: "PresentationAPI", dependencies: ["Presentation", "JSON", "MicroHTTP"], swiftSettings: strict),
        // The promises the fuzz targets check (Fuzz/), and the test suites with them.
        .target(name: "SessionChecks", dependencies: ["Presentation", "JSON"], swiftSettings: strict),
        .target(
            name: "APIChecks",
            dependencies: ["SessionChecks", "PresentationAPI", "Presentation", "JSON", "MicroHTTP"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "PresentationServer",
            dependencies: ["PresentationAPI", "MicroHTTP", "Presentation", "JSON", "SessionStorage"],
            swiftSettings: strict
        ),
        // The API layer's cost per request in process, no sockets (make bench prints it).
        .executableTarget(
            name: "APIBench",
            dependencies: ["PresentationAPI", "Presentation", "MicroHTTP"],
            swiftSettings: strict
        ),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strict),
        .testTarget(name: "PresentationTests", dependencies: ["Presentation", "JSON", "SessionChecks"], swiftSettings: strict),
        .testTarget(
            name: "SessionStorageTests", dependencies: ["SessionStorage", "Presentation", "JSON", "SessionChecks"],
            swiftSettings: strict),
        .testTarget(
            name: "PresentationAPITests",
            dependencies: ["PresentationAPI", "Presentation", "JSON", "MicroHTTP", "SessionChecks"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["PresentationAPI", "Presentation", "JSON", "MicroHTTP", "SessionChecks"],
            swiftSettings: strict
        ),
        // Replays Fuzz/Corpus and Fuzz/Regressions through the fuzz targets' checks, without libFuzzer.
        .testTarget(
            name: "FuzzReplayTests", dependencies: ["SessionChecks", "APIChecks", "MicroHTTP"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
