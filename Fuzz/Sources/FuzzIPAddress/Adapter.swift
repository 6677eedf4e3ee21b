@testable import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    /// An address read strictly (dotted quad, RFC 4291 text), as network-order bytes and its
    /// canonical text.
    static func strictAddress(_ text: String) -> (bytes: [UInt8], canonical: String)? {
        IPAddress(text).map { (bytes(of: $0), $0.description) }
    }

    /// An address as a URL's host names it (every IPv4 spelling `inet_aton` takes, IPv6 in
    /// brackets).
    static func hostAddress(_ text: String) -> (bytes: [UInt8], canonical: String)? {
        IPAddress(host: text).map { (bytes(of: $0), $0.description) }
    }

    private static func bytes(of address: IPAddress) -> [UInt8] {
        if let value = address.v4Value { return (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        return (0..<16).map { index in
            let half = index < 8 ? address.high : address.low
            return UInt8(truncatingIfNeeded: half >> UInt64(56 - 8 * (index % 8)))
        }
    }
}
