// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "HTTPTransport",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HTTPTransport", targets: ["HTTPTransport"]),
        // swift-http-types' HTTPRequest/HTTPResponse/HTTPFields: sends and conversions.
        .library(name: "HTTPTransportHTTPTypes", targets: ["HTTPTransportHTTPTypes"]),
        // A ClientTransport for swift-openapi-generator's clients.
        .library(name: "HTTPTransportOpenAPI", targets: ["HTTPTransportOpenAPI"]),
        // Host limits, circuits, retry budgets and the cache shared through Redis (hiredis).
        .library(name: "HTTPTransportRedis", targets: ["HTTPTransportRedis"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // Only HTTPTransportHTTPTypes uses it; the core product gains no dependency.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // Only HTTPTransportOpenAPI uses it.
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // Only the WorkerDaemon example uses it (its metrics in Prometheus' text format).
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        .target(
            name: "CCurl",
            linkerSettings: [
                .linkedLibrary("curl"),
                .linkedLibrary("ssl"),
                .linkedLibrary("crypto"),
                // A stream's content decoding (ccurl_decode.c), which libcurl links too.
                .linkedLibrary("z"),
                .linkedLibrary("brotlidec"),
                .linkedLibrary("zstd"),
            ]
        ),
        .systemLibrary(
            name: "CLibPSL",
            pkgConfig: "libpsl",
            providers: [.apt(["libpsl-dev"])]
        ),
        // OpenSSL's SHA-256 for the HTTP cache (libcrypto only; not swift-crypto, which is heavy to build).
        .systemLibrary(name: "COpenSSLDigest", path: "Sources/COpenSSLDigest"),
        .target(
            name: "HTTPTransport",
            dependencies: [
                "CCurl",
                "CLibPSL",
                "COpenSSLDigest",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "HTTPTransportHTTPTypes",
            dependencies: ["HTTPTransport", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .target(
            name: "HTTPTransportOpenAPI",
            dependencies: [
                "HTTPTransport",
                "HTTPTransportHTTPTypes",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
        .systemLibrary(name: "CHiredis", path: "Sources/CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .target(
            name: "HTTPTransportRedis",
            dependencies: ["HTTPTransport", "CHiredis", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "ExampleServer",
            dependencies: ["COpenSSLDigest"],
            path: "Examples/ExampleServer"
        ),
        .executableTarget(
            name: "Demo",
            dependencies: ["HTTPTransport", "ExampleServer"],
            path: "Examples/Demo"
        ),
        .executableTarget(
            name: "WorkerDaemon",
            dependencies: [
                "HTTPTransport",
                "HTTPTransportRedis",
                "ExampleServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Examples/WorkerDaemon"
        ),
        .executableTarget(
            name: "DependentRequests",
            dependencies: ["HTTPTransport", "ExampleServer"],
            path: "Examples/DependentRequests"
        ),
        .executableTarget(
            name: "OpenAPIClient",
            dependencies: [
                "HTTPTransport",
                "HTTPTransportOpenAPI",
                "ExampleServer",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Examples/OpenAPIClient",
            // The OpenAPI document Generated/ was made from.
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"]
        ),
        .executableTarget(
            name: "Middleware",
            dependencies: ["HTTPTransport", "ExampleServer"],
            path: "Examples/Middleware"
        ),
        .testTarget(
            name: "HTTPTransportTests",
            dependencies: [
                "HTTPTransport",
                "HTTPTransportHTTPTypes",
                "HTTPTransportOpenAPI",
                "HTTPTransportRedis",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            // HAR files exported by browsers, read by HTTPArchiveEngineTests through #filePath;
            // the OpenAPI document whose generated client (OpenAPI/Generated) the tests use.
            exclude: ["TestSupport/Fixtures", "Integration/Ecosystem/OpenAPI/openapi.yaml",
                      "Integration/Ecosystem/OpenAPI/openapi-generator-config.yaml", "Integration/Ecosystem/OpenAPI/README.md"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
