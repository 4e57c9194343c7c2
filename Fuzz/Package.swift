// swift-tools-version:5.4
// The fuzz targets: a package of their own, because they are built with libFuzzer and
// AddressSanitizer (`-sanitize=fuzzer,address`), which the server's own build must not get.
// `make fuzz` builds them (scratch path .build-fuzz) and runs each for a bounded time.
//
// Tools version 5.4 on purpose: from 5.5 on, SwiftPM renames an executable's entry point and
// links `main` to it, but a fuzz target has no entry point of its own (libFuzzer's `main`
// calls `LLVMFuzzerTestOneInput`), so the link would fail. The code that matters is in the
// server's package (SessionChecks, APIChecks), built there in Swift 6 mode.
import PackageDescription

let package = Package(
    name: "presentation-server-fuzz",
    dependencies: [.package(name: "presentation-server", path: "..")],
    targets: [
        // Requests built from the input, answered by PresentationAPI.respond(to:): RequestSequenceCheck.
        .executableTarget(
            name: "fuzz-requests",
            dependencies: [.product(name: "FuzzChecks", package: "presentation-server")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        // Operation sequences applied to one session through the domain: StepSequenceCheck.
        .executableTarget(
            name: "fuzz-sessions",
            dependencies: [.product(name: "FuzzChecks", package: "presentation-server")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ]
)
