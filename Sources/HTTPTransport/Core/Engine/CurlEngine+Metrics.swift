import CCurl
import Foundation

/// The figures of a finished transfer (`TransferMetrics`), as libcurl measured them.
extension CurlEngine {
    /// libcurl's figures for the transfer that just ended on `handle`, read in one C call
    /// (`sentBody`: whether the request had a body; `receivedStatus`: whether a status line arrived).
    func collectMetrics(_ handle: EasyHandle, sentBody: Bool, receivedStatus: Bool) -> TransferMetrics {
        var figures = ccurl_metrics()
        ccurl_get_metrics(handle.curl, sentBody ? 1 : 0, &figures)
        var metrics = TransferMetrics()
        metrics.nameLookup = Double(figures.name_lookup_us) / 1_000_000
        metrics.connect = Double(figures.connect_us) / 1_000_000
        metrics.tlsHandshake = Double(figures.tls_handshake_us) / 1_000_000
        metrics.firstByte = Double(figures.first_byte_us) / 1_000_000
        metrics.total = Double(figures.total_us) / 1_000_000
        metrics.bytesSent = Int64(figures.bytes_sent)
        metrics.bytesReceived = Int64(figures.bytes_received)
        metrics.connectionReused = figures.connects == 0 && receivedStatus
        switch figures.http_version {
        case Int(CURL_HTTP_VERSION_1_0): metrics.httpVersion = "1.0"
        case Int(CURL_HTTP_VERSION_1_1): metrics.httpVersion = "1.1"
        case Int(CURL_HTTP_VERSION_2_0): metrics.httpVersion = "2"
        case Int(CURL_HTTP_VERSION_3): metrics.httpVersion = "3"
        default: metrics.httpVersion = ""
        }
        metrics.remoteAddress = handle.remoteAddress(figures.remote_address)
        metrics.remotePort = figures.remote_port
        metrics.localPort = figures.local_port
        return metrics
    }
}
