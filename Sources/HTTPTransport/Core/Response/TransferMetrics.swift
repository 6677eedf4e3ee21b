import Foundation

/// Timing and size figures of one exchange, from libcurl's transfer information.
/// Times are seconds from the start of the transfer (cumulative, as libcurl reports them).
public struct TransferMetrics: Sendable, Hashable {
    /// Time until the host name was resolved.
    public var nameLookup: TimeInterval = 0
    /// Time until the TCP connection was made.
    public var connect: TimeInterval = 0
    /// Time until the TLS handshake finished (0 for plain HTTP).
    public var tlsHandshake: TimeInterval = 0
    /// Time until the first response byte arrived.
    public var firstByte: TimeInterval = 0
    /// Time of the whole exchange.
    public var total: TimeInterval = 0
    /// Bytes of request body sent.
    public var bytesSent: Int64 = 0
    /// Bytes of response body received (after decompression).
    public var bytesReceived: Int64 = 0
    /// Redirects the pipeline followed before this response.
    public var redirectCount: Int = 0
    /// `true` when the exchange reused an already open connection.
    public var connectionReused: Bool = false
    /// The HTTP version used (`"1.1"`, `"2"`).
    public var httpVersion: String = ""
    /// The server's address and port.
    public var remoteAddress: String = ""
    /// The remote port.
    public var remotePort: Int = 0
    /// The local port of the connection (the same for requests on one reused connection).
    public var localPort: Int = 0
    /// Whether the session's `HTTPCache` answered: `.hit` (no network; the other figures are
    /// zero apart from `total`), `.revalidated`, `.miss`, or `.disabled` when there is no cache.
    public var cacheStatus: HTTPCacheStatus = .disabled

    /// Empty metrics (for responses made without a network, e.g. by a stub engine).
    public init() {}
}
