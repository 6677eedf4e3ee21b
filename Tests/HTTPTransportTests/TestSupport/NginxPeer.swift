import Foundation

/// nginx on loopback, one process in the foreground, everything in its temporary directory:
///
/// | listener                                   | serves                                          |
/// |--------------------------------------------|-------------------------------------------------|
/// | `h2cPort` on 127.0.0.1                     | HTTP/2 in clear text only (prior knowledge)      |
/// | `tlsPort` on 127.0.0.1                     | TLS with HTTP/2 and HTTP/1.1 (the test CA's leaf) |
/// | `port` on 127.0.0.1, 127.0.0.2 and [::1], and `unixSocket` | HTTP/1.1                         |
/// | `httpsProxyPort` on 127.0.0.1               | an HTTPS forward proxy for `http://` URLs         |
///
/// Every route answers `PROTOCOL HOST URI SERVER-ADDRESS` as text; on the plain listener
/// `/redirect-to-127.0.0.2` and `/redirect-to-v6` redirect to `/landed` at that address, and
/// `/status` is nginx's `stub_status` (connections accepted so far: `acceptedConnections`); on the
/// TLS listener `/delayed/SECONDS` is the test server's `/delay/SECONDS` behind nginx (HTTP/2
/// answers that take their time, for many streams in flight at once). The access log
/// (`access.log`) has `SERVER-ADDRESS "REQUEST"` per line.
final class NginxPeer: @unchecked Sendable {
    let peer: PeerProcess
    let port: Int
    let h2cPort: Int
    let tlsPort: Int
    let httpsProxyPort: Int
    var unixSocket: String { peer.path("nginx.sock") }

    init(certificates: URL) throws {
        let binary = try PeerProcess.binary(["/usr/sbin/nginx", "/usr/bin/nginx"], package: "nginx-light")
        peer = try PeerProcess(name: "nginx")
        port = TestServer.closedPort()
        h2cPort = TestServer.closedPort()
        tlsPort = TestServer.closedPort()
        httpsProxyPort = TestServer.closedPort()
        try peer.write("nginx.conf", Self.configuration(in: peer, certificates: certificates, port: port, h2cPort: h2cPort,
                                                        tlsPort: tlsPort, httpsProxyPort: httpsProxyPort))
        let (port, h2cPort, tlsPort, proxyPort, socket) = (port, h2cPort, tlsPort, httpsProxyPort, peer.path("nginx.sock"))
        try peer.start(binary, ["-p", peer.directory.path, "-c", peer.path("nginx.conf"), "-e", peer.path("error.log")]) {
            PeerProcess.accepts(host: "127.0.0.1", port: port) && PeerProcess.accepts(host: "::1", port: port)
                && PeerProcess.accepts(host: "127.0.0.1", port: h2cPort) && PeerProcess.accepts(host: "127.0.0.1", port: tlsPort)
                && PeerProcess.accepts(host: "127.0.0.1", port: proxyPort)
                && PeerProcess.accepts(unixSocket: socket)
        }
    }

    /// nginx.conf for the listeners in the table above, every path inside the peer's directory.
    private static func configuration(in peer: PeerProcess, certificates: URL, port: Int, h2cPort: Int, tlsPort: Int,
                                      httpsProxyPort: Int) -> String {
        let answer = #"return 200 "$server_protocol $http_host $request_uri $server_addr\n";"#
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(peer.path("nginx.pid"));
            error_log \(peer.path("error.log")) info;
            events { worker_connections 1024; }
            http {
                log_format peer '$server_addr "$request"';
                access_log \(peer.path("access.log")) peer;
                client_body_temp_path \(peer.path("body"));
                proxy_temp_path \(peer.path("proxy"));
                fastcgi_temp_path \(peer.path("fastcgi"));
                uwsgi_temp_path \(peer.path("uwsgi"));
                scgi_temp_path \(peer.path("scgi"));
                default_type text/plain;
                server {
                    listen 127.0.0.1:\(h2cPort) http2;
                    location / { \(answer) }
                }
                server {
                    listen 127.0.0.1:\(tlsPort) ssl http2;
                    ssl_certificate \(certificates.appendingPathComponent("leaf-chain.pem").path);
                    ssl_certificate_key \(certificates.appendingPathComponent("leaf.key").path);
                    location /delayed/ { proxy_pass http://127.0.0.1:\(TestServer.shared.ports["http"] ?? 0)/delay/; }
                    location / { \(answer) }
                }
                server {
                    listen 127.0.0.1:\(httpsProxyPort) ssl;
                    ssl_certificate \(certificates.appendingPathComponent("leaf-chain.pem").path);
                    ssl_certificate_key \(certificates.appendingPathComponent("leaf.key").path);
                    location / { proxy_pass http://$http_host; }
                }
                server {
                    listen 127.0.0.1:\(port);
                    listen 127.0.0.2:\(port);
                    listen [::1]:\(port);
                    listen unix:\(peer.path("nginx.sock"));
                    location = /redirect-to-127.0.0.2 { return 302 http://127.0.0.2:\(port)/landed; }
                    location = /redirect-to-v6 { return 302 http://[::1]:\(port)/landed; }
                    location = /status { stub_status; }
                    location / { \(answer) }
                }
            }

            """
    }

    /// The access log so far.
    var accessLog: String { peer.read("access.log") }

    func waitForLog(_ text: String) -> Bool { peer.waitFor(text, in: "access.log") }

    func stop() { peer.stop() }

    /// Connections nginx accepted so far, on every listener, as its `stub_status` page says:
    /// "Active connections: 1 \nserver accepts handled requests\n 5 5 9 \n…".
    static func acceptedConnections(inStatus text: String) -> Int? {
        let lines = text.split(separator: "\n")
        guard lines.count > 2 else { return nil }
        return lines[2].split(separator: " ").first.flatMap { Int($0) }
    }
}
