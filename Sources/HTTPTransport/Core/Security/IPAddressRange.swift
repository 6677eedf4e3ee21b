/// The special-purpose ranges of IANA's IPv4 and IPv6 registries that an address policy keeps a
/// request away from, and the cloud metadata endpoints inside and outside them.
enum IPAddressRange: String, Sendable {
    case unspecified = "unspecified"
    case loopback = "loopback"
    case privateNetwork = "private network"
    case sharedAddressSpace = "shared address space (carrier-grade NAT)"
    case linkLocal = "link-local"
    case uniqueLocal = "unique local"
    case multicast = "multicast"
    case broadcast = "broadcast"
    case documentation = "documentation"
    case benchmarking = "benchmarking"
    case cloudMetadata = "cloud metadata service"
    case reserved = "reserved"
}

extension IPAddress {
    /// The special-purpose range this address is in, or `nil` for an ordinary public (globally
    /// reachable) address. IPv6 forms that reach IPv4 (mapped, NAT64, 6to4) are judged by the
    /// IPv4 address they carry.
    var specialRange: IPAddressRange? {
        if let metadata = Self.cloudMetadata[self] { return metadata }
        if let v4 = v4Value { return Self.v4Range(v4) }
        if let embedded = embeddedIPv4 { return embedded.specialRange }
        return Self.v6Range(high: high, low: low)
    }

    /// Whether the address is globally reachable (in no special-purpose range).
    var isPublic: Bool { specialRange == nil }

    /// Instance-metadata and platform endpoints of the large clouds (AWS, GCP, Azure, Oracle,
    /// Alibaba, AWS ECS), which hand out credentials to whoever asks from inside.
    private static let cloudMetadata: [IPAddress: IPAddressRange] = {
        var table: [IPAddress: IPAddressRange] = [:]
        for text in ["169.254.169.254", "169.254.170.2", "168.63.129.16", "100.100.100.200", "192.0.0.192",
                     "fd00:ec2::254"] {
            if let address = IPAddress(text) { table[address] = .cloudMetadata }
        }
        return table
    }()

    private static let v4Ranges: [(base: UInt32, bits: UInt32, range: IPAddressRange)] = [
        (0x0000_0000, 8, .unspecified),          // 0.0.0.0/8 "this network"
        (0x0A00_0000, 8, .privateNetwork),       // 10.0.0.0/8
        (0x6440_0000, 10, .sharedAddressSpace),  // 100.64.0.0/10
        (0x7F00_0000, 8, .loopback),             // 127.0.0.0/8
        (0xA9FE_0000, 16, .linkLocal),           // 169.254.0.0/16
        (0xAC10_0000, 12, .privateNetwork),      // 172.16.0.0/12
        (0xC000_0000, 24, .reserved),            // 192.0.0.0/24 IETF protocol assignments
        (0xC000_0200, 24, .documentation),       // 192.0.2.0/24 TEST-NET-1
        (0xC058_6300, 24, .reserved),            // 192.88.99.0/24 deprecated 6to4 relays
        (0xC0A8_0000, 16, .privateNetwork),      // 192.168.0.0/16
        (0xC612_0000, 15, .benchmarking),        // 198.18.0.0/15
        (0xC633_6400, 24, .documentation),       // 198.51.100.0/24 TEST-NET-2
        (0xCB00_7100, 24, .documentation),       // 203.0.113.0/24 TEST-NET-3
        (0xE000_0000, 4, .multicast),            // 224.0.0.0/4
        (0xFFFF_FFFF, 32, .broadcast),           // 255.255.255.255
        (0xF000_0000, 4, .reserved),             // 240.0.0.0/4
    ]

    private static func v4Range(_ value: UInt32) -> IPAddressRange? {
        for entry in v4Ranges {
            let mask: UInt32 = entry.bits == 0 ? 0 : ~UInt32(0) << (32 - entry.bits)
            if value & mask == entry.base { return entry.range }
        }
        return nil
    }

    private static let v6Ranges: [(high: UInt64, bits: UInt64, range: IPAddressRange)] = [
        (0x0064_FF9B_0001_0000, 48, .privateNetwork),  // 64:ff9b:1::/48 local-use NAT64
        (0x0100_0000_0000_0000, 64, .reserved),        // 100::/64 discard-only
        (0x2001_0002_0000_0000, 48, .benchmarking),    // 2001:2::/48
        (0x2001_0DB8_0000_0000, 32, .documentation),   // 2001:db8::/32
        (0x2001_0000_0000_0000, 23, .reserved),        // 2001::/23 IETF protocol assignments (Teredo, ORCHID…)
        (0x3FFF_0000_0000_0000, 20, .documentation),   // 3fff::/20
        (0xFC00_0000_0000_0000, 7, .uniqueLocal),      // fc00::/7
        (0xFE80_0000_0000_0000, 10, .linkLocal),       // fe80::/10
        (0xFEC0_0000_0000_0000, 10, .privateNetwork),  // fec0::/10 deprecated site-local
        (0xFF00_0000_0000_0000, 8, .multicast),        // ff00::/8
    ]

    private static func v6Range(high: UInt64, low: UInt64) -> IPAddressRange? {
        if high == 0, low == 0 { return .unspecified }
        if high == 0, low == 1 { return .loopback }
        for entry in v6Ranges {
            let mask: UInt64 = ~UInt64(0) << (64 - entry.bits)
            if high & mask == entry.high { return entry.range }
        }
        // Only 2000::/3 is global unicast; everything else is reserved by the IETF.
        return high >> 61 == 0b001 ? nil : .reserved
    }
}
