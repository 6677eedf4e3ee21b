// swift-tools-version:6.0
// The fuzz targets: one libFuzzer executable per parser, separate from the library so that it
// gains no dependency and no public API from them. They reach internal parsers through
// `@testable import HTTPTransport`, so they build in debug only. Build and run through ./run.sh,
// which passes `-sanitize=fuzzer,address`.
import Foundation
import PackageDescription

// A path dependency is known by its folder's name ("main" here, something else in another
// clone), so the library's package identity is computed rather than spelled out.
let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

/// Every target, by the name of its folder under Sources/ and Corpus/.
let fuzzTargets = [
    "FuzzSetCookie",
    "FuzzCookieFile",
    "FuzzCookieDate",
    "FuzzHeaderBlock",
    "FuzzContentDisposition",
    "FuzzRedirect",
    "FuzzPins",
    "FuzzParameterEncoding",
    "FuzzEndpoint",
    "FuzzIPAddress",
    "FuzzProxy",
    "FuzzRedaction",
    "FuzzHTTPArchive",
    "FuzzServerSentEvents",
]

let package = Package(
    name: "HTTPTransportFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        // Reading structured values out of the fuzzer's bytes, and failing on a broken invariant.
        .target(name: "FuzzSupport", dependencies: ["FuzzDriver"]),
        // The declaration of libFuzzer's driver entry (the targets have their own `main`).
        .target(name: "FuzzDriver"),
    ] + fuzzTargets.map { name in
        .executableTarget(
            name: name,
            dependencies: ["FuzzSupport", .product(name: "HTTPTransport", package: library)]
        )
    },
    swiftLanguageModes: [.v6]
)
