import Foundation

/// microsocks on 127.0.0.1: a SOCKS5 proxy requiring a user name and password. It prints one
/// line per tunnel (`client[N] 127.0.0.1: connected to HOST:PORT`).
final class MicrosocksPeer: @unchecked Sendable {
    let peer: PeerProcess
    let port: Int
    let username = "socks-user"
    let password = "socks-secret"

    init() throws {
        let binary = try PeerProcess.binary(["/usr/bin/microsocks"], package: "microsocks")
        peer = try PeerProcess(name: "microsocks")
        port = TestServer.closedPort()
        let port = port
        try peer.start(binary, ["-i", "127.0.0.1", "-p", String(port), "-u", username, "-P", password]) {
            PeerProcess.accepts(host: "127.0.0.1", port: port)
        }
    }

    /// What microsocks printed so far.
    var log: String { peer.read("output.log") }

    func waitForLog(_ text: String) -> Bool { peer.waitFor(text, in: "output.log") }

    func stop() { peer.stop() }
}
