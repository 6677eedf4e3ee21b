import Foundation

/// Debian's redis-server on loopback, run by the test in the foreground: TCP on 127.0.0.1 at
/// `port` and a Unix socket in its temporary directory, nothing saved to disk, an optional
/// password. A new peer on the port of a stopped one is a restarted Redis (empty).
final class RedisPeer: @unchecked Sendable {
    let peer: PeerProcess
    let port: Int
    var unixSocket: String { peer.path("redis.sock") }

    init(port: Int = TestServer.closedPort(), password: String? = nil) throws {
        let binary = try PeerProcess.binary(["/usr/bin/redis-server", "/usr/sbin/redis-server"], package: "redis-server")
        peer = try PeerProcess(name: "redis")
        self.port = port
        var arguments = ["--port", String(port), "--bind", "127.0.0.1", "--unixsocket", peer.path("redis.sock"),
                         "--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--dir", peer.directory.path,
                         "--daemonize", "no", "--protected-mode", "no"]
        if let password { arguments += ["--requirepass", password] }
        let socket = peer.path("redis.sock")
        try peer.start(binary, arguments) {
            PeerProcess.accepts(host: "127.0.0.1", port: port) && PeerProcess.accepts(unixSocket: socket)
        }
    }

    /// `redis://127.0.0.1:port` with `credentials` (`user:password` or `:password`) when given.
    func url(credentials: String? = nil) -> URL {
        let login = credentials.map { "\($0)@" } ?? ""
        return URL(string: "redis://\(login)127.0.0.1:\(port)")!
    }

    func stop() { peer.stop() }
}
