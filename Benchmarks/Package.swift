// swift-tools-version:6.0
// The benchmark package: separate from the library so the library gains no dependency from it.
import PackageDescription

let package = Package(
    name: "HTTPTransportBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "ReuseSoak",
            dependencies: [.product(name: "HTTPTransport", package: "main")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
