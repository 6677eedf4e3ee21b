import Foundation

/// tinyproxy on 127.0.0.1: an HTTP proxy that forwards plain requests and tunnels CONNECT,
/// requiring basic authentication when `username` is given. Its log records every request
/// (`Request (file descriptor N): GET http://…` and `CONNECT host:port`).
final class TinyproxyPeer: @unchecked Sendable {
    let peer: PeerProcess
    let port: Int
    let username: String?
    let password: String?

    init(username: String? = nil, password: String? = nil) throws {
        let binary = try PeerProcess.binary(["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy"], package: "tinyproxy")
        peer = try PeerProcess(name: "tinyproxy")
        port = TestServer.closedPort()
        self.username = username
        self.password = password
        var config = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 60
            MaxClients 64
            LogFile "\(peer.path("tinyproxy.log"))"
            LogLevel Connect
            PidFile "\(peer.path("tinyproxy.pid"))"
            DisableViaHeader Yes

            """
        if let username, let password { config += "BasicAuth \(username) \(password)\n" }
        try peer.write("tinyproxy.conf", config)
        let port = port
        try peer.start(binary, ["-d", "-c", peer.path("tinyproxy.conf")]) {
            PeerProcess.accepts(host: "127.0.0.1", port: port)
        }
    }

    /// `http://127.0.0.1:PORT`
    var url: String { "http://127.0.0.1:\(port)" }

    /// The proxy's log so far.
    var log: String { peer.read("tinyproxy.log") }

    func waitForLog(_ text: String) -> Bool { peer.waitFor(text, in: "tinyproxy.log") }

    func stop() { peer.stop() }
}
