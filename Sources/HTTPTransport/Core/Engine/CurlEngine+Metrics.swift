import CCurl
import Foundation

/// The figures of a finished transfer (`TransferMetrics`), as libcurl measured them.
extension CurlEngine {
    /// libcurl's figures for the transfer that just ended on `handle`, read in one C call
    /// (`sentBody`: whether the request had a body; `receivedStatus`: whether a status line arrived).
    func collectMetrics(_ handle: EasyHandle, sentBody: Bool, receivedStatus: Bool) -> TransferMetrics {
        var figures = ccurl_metrics()
        ccurl_get_metrics(handle.curl, sentBody ? 1 : 0, &figures)
        let httpVersion: String
        switch figures.http_version {
        case Int(CURL_HTTP_VERSION_1_0): httpVersion = "1.0"
        case Int(CURL_HTTP_VERSION_1_1): httpVersion = "1.1"
        case Int(CURL_HTTP_VERSION_2_0): httpVersion = "2"
        case Int(CURL_HTTP_VERSION_3): httpVersion = "3"
        default: httpVersion = ""
        }
        return TransferMetrics(
            nameLookup: Double(figures.name_lookup_us) / 1_000_000, connect: Double(figures.connect_us) / 1_000_000,
            tlsHandshake: Double(figures.tls_handshake_us) / 1_000_000, firstByte: Double(figures.first_byte_us) / 1_000_000,
            total: Double(figures.total_us) / 1_000_000, bytesSent: Int64(figures.bytes_sent),
            bytesReceived: Int64(figures.bytes_received), connectionReused: figures.connects == 0 && receivedStatus,
            httpVersion: httpVersion, remoteAddress: handle.remoteAddress(figures.remote_address),
            remotePort: figures.remote_port, localPort: figures.local_port)
    }
}

extension TransferMetrics {
    /// The figures of a transfer, every one given (the engine's; no redirect counted, no cache).
    init(nameLookup: TimeInterval, connect: TimeInterval, tlsHandshake: TimeInterval, firstByte: TimeInterval,
         total: TimeInterval, bytesSent: Int64, bytesReceived: Int64, connectionReused: Bool, httpVersion: String,
         remoteAddress: String, remotePort: Int, localPort: Int) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.connectionReused = connectionReused
        self.httpVersion = httpVersion
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.localPort = localPort
    }
}
