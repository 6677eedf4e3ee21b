// swift-tools-version:6.0
// Memory of 1 GiB transfers: a download to file and a file upload, each measured as peak
// resident memory above the process's baseline. Run through ../large-bodies.sh.
import Foundation
import PackageDescription

// A path dependency is known by its folder's name ("main" in one clone, something else in
// another), so the library's package identity is computed rather than spelled out.
let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "LargeBodies",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(name: "LargeBodies", dependencies: [.product(name: "HTTPTransport", package: library)]),
    ],
    swiftLanguageModes: [.v6]
)
