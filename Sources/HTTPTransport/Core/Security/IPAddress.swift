/// An IPv4 or IPv6 address, read from text or from socket bytes, and the special-purpose range
/// it belongs to, if any. One place for "is this text an IP address, and is it public": the
/// address policy uses it on every connection, and host-name rules (cookies, pins) can ask the
/// same question of a URL's host.
///
/// IPv4 addresses are kept in the low 32 bits of `low` (`high` is 0); IPv6 addresses in the two
/// 64-bit halves, most significant first.
struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    enum Family: Sendable { case v4, v6 }

    let family: Family
    let high: UInt64
    let low: UInt64

    init(v4 value: UInt32) {
        family = .v4
        high = 0
        low = UInt64(value)
    }

    init(v6High high: UInt64, low: UInt64) {
        family = .v6
        self.high = high
        self.low = low
    }

    /// From network-order bytes: 4 for IPv4, 16 for IPv6.
    init?(bytes: some Collection<UInt8>) {
        switch bytes.count {
        case 4: self.init(v4: bytes.reduce(0) { $0 << 8 | UInt32($1) })
        case 16:
            let high = bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
            let low = bytes.dropFirst(8).reduce(0) { $0 << 8 | UInt64($1) }
            self.init(v6High: high, low: low)
        default: return nil
        }
    }

    /// The IPv4 value of an IPv4 address.
    var v4Value: UInt32? { family == .v4 ? UInt32(truncatingIfNeeded: low) : nil }

    // MARK: Reading text

    /// Strict: a dotted-quad IPv4 address (four decimal parts, no leading zeros) or an IPv6
    /// address in RFC 4291 text (optionally in brackets, no zone).
    init?(_ text: some StringProtocol) {
        guard let address = Self.parse(Array(text.utf8)[...], v4: Self.parseDottedQuad) else { return nil }
        self = address
    }

    /// As a URL's host names an address: an IPv6 address in brackets, or IPv4 in any spelling
    /// the WHATWG URL parser and `inet_aton` accept (`127.1`, `2130706433`, `0x7f.0.0.1`,
    /// `0177.0.0.1`, a trailing dot), which all reach the same address. `nil` for a host name.
    init?(host: some StringProtocol) {
        guard let address = Self.parse(Array(host.utf8)[...], v4: Self.parseLenientV4) else { return nil }
        self = address
    }

    private static func parse(_ bytes: ArraySlice<UInt8>, v4: (ArraySlice<UInt8>) -> UInt32?) -> IPAddress? {
        if bytes.first == UInt8(ascii: "[") {
            guard bytes.last == UInt8(ascii: "]") else { return nil }
            return parseV6(bytes.dropFirst().dropLast())
        }
        if bytes.contains(UInt8(ascii: ":")) { return parseV6(bytes) }
        return v4(bytes).map(IPAddress.init(v4:))
    }

    private static func parseDottedQuad(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(isDigit),
                  part.count == 1 || part.first != UInt8(ascii: "0") else { return nil }
            let number = part.reduce(0) { $0 * 10 + UInt32($1 - 48) }
            guard number <= 255 else { return nil }
            value = value << 8 | number
        }
        return value
    }

    /// The WHATWG URL "IPv4 parser": one to four parts, each decimal, octal (leading 0) or hex
    /// (0x); the last part fills the remaining bytes.
    private static func parseLenientV4(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        var parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = parseV4Number(part) else { return nil }
            numbers.append(number)
        }
        guard let last = numbers.last else { return nil }
        for number in numbers.dropLast() where number > 255 { return nil }
        let lastBits = UInt64(8 * (5 - numbers.count))
        guard last < (1 << lastBits) else { return nil }
        var value = last
        for (index, number) in numbers.dropLast().enumerated() {
            value |= number << UInt64(8 * (3 - index))
        }
        return UInt32(value)
    }

    private static func parseV4Number(_ part: ArraySlice<UInt8>) -> UInt64? {
        guard !part.isEmpty else { return nil }
        var digits = part
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == UInt8(ascii: "0"),
           digits.dropFirst().first.map({ $0 | 0x20 == UInt8(ascii: "x") }) == true {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count >= 2, digits.first == UInt8(ascii: "0") {
            digits = digits.dropFirst()
            radix = 8
        }
        var value: UInt64 = 0
        for byte in digits {
            guard let digit = hexValue(byte), digit < radix else { return nil }
            value = value * radix + digit
            guard value <= UInt64(UInt32.max) else { return nil }
        }
        return value
    }

    private static func parseV6(_ bytes: ArraySlice<UInt8>) -> IPAddress? {
        guard !bytes.isEmpty, bytes.count <= 45 else { return nil }
        var groups: [UInt16] = []
        var gap: Int?  // index in `groups` where "::" stands
        var rest = bytes
        if rest.starts(with: [UInt8(ascii: ":"), UInt8(ascii: ":")]) {
            gap = 0
            rest = rest.dropFirst(2)
        }
        while !rest.isEmpty {
            let end = rest.firstIndex(of: UInt8(ascii: ":")) ?? rest.endIndex
            let piece = rest[rest.startIndex..<end]
            if end == rest.endIndex, piece.contains(UInt8(ascii: ".")) {
                // A dotted-quad tail fills the last two groups.
                guard let v4 = parseDottedQuad(piece) else { return nil }
                groups += [UInt16(v4 >> 16), UInt16(v4 & 0xFFFF)]
                rest = rest[end...]
                break
            }
            guard (1...4).contains(piece.count) else { return nil }
            var group: UInt16 = 0
            for byte in piece {
                guard let digit = hexValue(byte) else { return nil }
                group = group << 4 | UInt16(digit)
            }
            groups.append(group)
            rest = rest[end...]
            if rest.starts(with: [UInt8(ascii: ":"), UInt8(ascii: ":")]) {
                guard gap == nil else { return nil }
                gap = groups.count
                rest = rest.dropFirst(2)
            } else if !rest.isEmpty {
                rest = rest.dropFirst()
                guard !rest.isEmpty else { return nil }  // a trailing single ":"
            }
        }
        if let gap {
            guard groups.count <= 7 else { return nil }
            groups.insert(contentsOf: repeatElement(0, count: 8 - groups.count), at: gap)
        }
        guard groups.count == 8 else { return nil }
        let high = groups[0..<4].reduce(0) { $0 << 16 | UInt64($1) }
        let low = groups[4..<8].reduce(0) { $0 << 16 | UInt64($1) }
        return IPAddress(v6High: high, low: low)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    private static func hexValue(_ byte: UInt8) -> UInt64? {
        switch byte {
        case 48...57: UInt64(byte - 48)
        case 97...102: UInt64(byte - 87)
        case 65...70: UInt64(byte - 55)
        default: nil
        }
    }

    // MARK: Writing text

    /// Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, the longest run of zero
    /// groups as `::`, IPv4-mapped addresses as `::ffff:a.b.c.d`).
    var description: String {
        if let value = v4Value { return Self.dottedQuad(value) }
        if high == 0, low >> 32 == 0xFFFF { return "::ffff:" + Self.dottedQuad(UInt32(truncatingIfNeeded: low)) }
        let groups = (0..<8).map { index -> UInt16 in
            let half = index < 4 ? high : low
            return UInt16(truncatingIfNeeded: half >> UInt64(16 * (3 - index % 4)))
        }
        var bestStart = -1, bestLength = 0, start = -1
        for index in 0...8 {
            if index < 8, groups[index] == 0 {
                if start < 0 { start = index }
            } else if start >= 0 {
                if index - start > bestLength { bestStart = start; bestLength = index - start }
                start = -1
            }
        }
        func hex(_ range: Range<Int>) -> String {
            range.map { String(groups[$0], radix: 16) }.joined(separator: ":")
        }
        guard bestLength >= 2 else { return hex(0..<8) }
        return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
    }

    private static func dottedQuad(_ value: UInt32) -> String {
        "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }

    /// The IPv4 address an IPv6 address stands for, where the connection really reaches IPv4:
    /// IPv4-mapped (`::ffff:0:0/96`), the NAT64 well-known prefix (`64:ff9b::/96`) and 6to4
    /// (`2002::/16`).
    var embeddedIPv4: IPAddress? {
        guard family == .v6 else { return nil }
        if high == 0, low >> 32 == 0xFFFF { return IPAddress(v4: UInt32(truncatingIfNeeded: low)) }
        if high == 0x0064_FF9B_0000_0000, low >> 32 == 0 { return IPAddress(v4: UInt32(truncatingIfNeeded: low)) }
        if high >> 48 == 0x2002 { return IPAddress(v4: UInt32(truncatingIfNeeded: high >> 16)) }
        return nil
    }
}

extension IPAddress {
    /// Whether a URL's host names an address rather than a domain: IPv6 text, IPv4 in any
    /// spelling, or (as the WHATWG URL standard reads hosts) a host whose last label is a number,
    /// which no registrable domain has. Domain rules (cookie domains, pin subdomains) never apply
    /// to an address.
    static func isAddress(host: String) -> Bool {
        if host.utf8.contains(UInt8(ascii: ":")) || IPAddress(host: host) != nil { return true }
        let trimmed = host.utf8.last == UInt8(ascii: ".") ? host.utf8.dropLast() : host.utf8[...]
        guard let last = trimmed.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).last,
              !last.isEmpty else { return false }
        return last.allSatisfy(isDigit)
    }

    /// The one spelling of an address host (`127.1`, `0x7f.0.0.1` and `[::ffff:127.0.0.1]` are
    /// all `127.0.0.1`; IPv6 in RFC 5952 text, without brackets); `nil` for a host name.
    static func canonical(host: String) -> String? {
        guard let address = IPAddress(host: host) else { return nil }
        if address.family == .v6, address.high == 0, address.low >> 32 == 0xFFFF, let mapped = address.embeddedIPv4 {
            return mapped.description
        }
        return address.description
    }
}
