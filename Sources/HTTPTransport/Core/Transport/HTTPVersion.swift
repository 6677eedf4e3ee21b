extension Session.Configuration {
    /// Which HTTP version requests use, set as `Session.Configuration.httpVersion`.
    ///
    /// Async sends, `send(requests:)` and streams share HTTP/2 connections on the session's
    /// transfer loop (`multiplexing`); a blocking send uses its pooled handle's connection
    /// alone. HTTP/2 also brings header compression and, on `http2PriorKnowledge`, reaching
    /// h2c-only servers.
    public enum HTTPVersion: Sendable, Hashable {
        /// HTTP/2 over TLS when the server offers it, HTTP/1.1 otherwise (the default).
        case automatic
        /// Always HTTP/1.1.
        case http1_1
        /// HTTP/2 from the first byte without negotiating it: for `http://` servers that speak
        /// HTTP/2 in clear text only (h2c, e.g. nginx `listen … http2;` without `ssl`, gRPC
        /// back ends). A server that does not speak HTTP/2 then fails the send.
        case http2PriorKnowledge
    }
}
