// swift-tools-version:6.0
// The benchmark package: separate from the library so the library gains no dependency from it
// (AsyncHTTPClient and FoundationNetworking are used here only, as clients to compare with).
// Run it through the scripts beside this file: run.sh (the clients), fanout.sh (many requests in
// flight at once), instructions.sh, soak.sh, large-bodies.sh, streaming.sh, handshake-storm.sh,
// websocket.sh, openapi.sh (OpenAPI transports) and fleet.sh (shared state in Redis).
import Foundation
import PackageDescription

// A path dependency is known by its folder's name ("main" here, something else in another
// clone), so the library's package identity is computed rather than spelled out.
let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let package = Package(
    name: "HTTPTransportBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // openapi.sh: the OpenAPI transports OpenAPITransport is compared with.
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
    ],
    targets: [
        // fleet.sh: the added cost of shared state in Redis, and the combined rate of processes.
        .executableTarget(
            name: "FleetBench",
            dependencies: [.product(name: "HTTPTransport", package: library),
                           .product(name: "HTTPTransportRedis", package: library)]
        ),
        // soak.sh: connection reuse and memory over 10,000 sequential GETs.
        .executableTarget(
            name: "ReuseSoak",
            dependencies: ["BenchSupport", .product(name: "HTTPTransport", package: library)]
        ),
        // The chaos soak (chaos.sh): many threads, one transport, a fault-injecting server.
        .executableTarget(
            name: "ChaosSoak",
            dependencies: [.product(name: "HTTPTransport", package: library)]
        ),
        // handshake-storm.sh: thousands of threads sending at once while TLS handshakes time out.
        .executableTarget(
            name: "HandshakeStorm",
            dependencies: [.product(name: "HTTPTransport", package: library)]
        ),
        // Timing, peak memory and the command line shared by the Swift clients.
        .target(name: "BenchSupport"),
        // (b) default interceptors, (c) ten no-op request + ten no-op response interceptors;
        // fanout.sh's async sends and send(requests:).
        .executableTarget(
            name: "BenchHTTPTransport",
            dependencies: ["BenchSupport", .product(name: "HTTPTransport", package: library)]
        ),
        // (d) URLSession from FoundationNetworking, used synchronously (fanout.sh: data(for:) in a task group).
        .executableTarget(name: "BenchURLSession", dependencies: ["BenchSupport"]),
        // (e) AsyncHTTPClient, awaited sequentially (fanout.sh: tasks of one task group).
        .executableTarget(
            name: "BenchAsyncHTTPClient",
            dependencies: ["BenchSupport", .product(name: "AsyncHTTPClient", package: "async-http-client")]
        ),
        // streaming.sh: stream throughput against a download to memory, memory of a slow stream.
        .executableTarget(
            name: "StreamingBodies",
            dependencies: ["BenchSupport", .product(name: "HTTPTransport", package: library)]
        ),
        // websocket.sh: echo round trips over WebSockets (against a C program on libcurl's API).
        .executableTarget(
            name: "WebSocketEcho",
            dependencies: [.product(name: "HTTPTransport", package: library)]
        ),
        // large-bodies.sh: peak memory of 1 GiB transfers, cancellation latency.
        .executableTarget(
            name: "LargeBodies",
            dependencies: ["BenchSupport", .product(name: "HTTPTransport", package: library)]
        ),
        // openapi.sh: a generated client's small GETs and streamed download over one transport per
        // executable, so each process's CPU time and peak memory are that transport's own.
        .target(
            name: "OpenAPIBench",
            dependencies: ["BenchSupport", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            // The OpenAPI document Generated/ was made from.
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"]
        ),
        .executableTarget(
            name: "OpenAPIOverHTTPTransport",
            dependencies: ["OpenAPIBench", .product(name: "HTTPTransportOpenAPI", package: library)]
        ),
        .executableTarget(
            name: "OpenAPIOverAsyncHTTPClient",
            dependencies: [
                "OpenAPIBench",
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ]
        ),
        .executableTarget(
            name: "OpenAPIOverURLSession",
            dependencies: ["OpenAPIBench", .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
