extension Session.Configuration {
    /// Which address family connections use, set as `Session.Configuration.ipVersion`.
    public enum IPVersion: Sendable, Hashable {
        /// IPv4 or IPv6, whichever the name resolves to and connects first (the default).
        case any
        /// IPv4 only.
        case v4
        /// IPv6 only.
        case v6
    }
}
