// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "HTTPTransport",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HTTPTransport", targets: ["HTTPTransport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "CCurl",
            linkerSettings: [
                .linkedLibrary("curl"),
                .linkedLibrary("ssl"),
                .linkedLibrary("crypto"),
            ]
        ),
        .target(
            name: "HTTPTransport",
            dependencies: [
                "CCurl",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ExampleServer",
            path: "Examples/ExampleServer"
        ),
        .executableTarget(
            name: "Demo",
            dependencies: ["HTTPTransport", "ExampleServer"],
            path: "Examples/Demo"
        ),
        .testTarget(
            name: "HTTPTransportTests",
            dependencies: [
                "HTTPTransport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
