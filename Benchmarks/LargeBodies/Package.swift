// swift-tools-version:6.0
// Memory of 1 GiB transfers: a download to file and a file upload, each measured as peak
// resident memory above the process's baseline. Run through ../large-bodies.sh.
import PackageDescription

let package = Package(
    name: "LargeBodies",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(name: "LargeBodies", dependencies: [.product(name: "HTTPTransport", package: "main")]),
    ],
    swiftLanguageModes: [.v6]
)
