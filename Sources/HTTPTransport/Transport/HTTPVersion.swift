extension Session.Configuration {
    /// Which HTTP version requests use, set as `Session.Configuration.httpVersion`.
    ///
    /// HTTP/2 here means one connection per pooled handle: a send uses its handle's connection
    /// alone, and sends on other threads use other handles and connections (they do not
    /// multiplex over one connection). What HTTP/2 brings is header compression and, on
    /// `http2PriorKnowledge`, reaching h2c-only servers.
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
