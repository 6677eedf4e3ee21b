import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What one easy handle keeps for its session-level connection options: the address policy
/// that libcurl's open-socket callback applies, the refusals of the current transfer, and the
/// `CURLOPT_RESOLVE` list (libcurl does not copy it, so it lives as long as the handle).
///
/// Used by one thread at a time, like its handle: libcurl calls the open-socket callback on
/// the thread that performs the transfer. (So the refusals, which every transfer looks at,
/// opt out of the runtime's exclusivity bookkeeping: ~75 instructions per send.)
final class ConnectionContext {
    /// The policy checked for every socket libcurl opens (set by `ConnectionOptions.apply`).
    var policy: AddressPolicy = .any
    /// Connections refused during the current transfer, in order.
    @exclusivity(unchecked) private(set) var refusals: [(peer: PeerAddress, reason: String)] = []
    /// The DNS overrides set as `CURLOPT_RESOLVE`, and the entries they were built from.
    private(set) var resolveList: UnsafeMutablePointer<curl_slist>?
    private var resolveEntries: [String] = []

    init() {}

    deinit {
        if let resolveList { curl_slist_free_all(resolveList) }
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Forgets the previous transfer's refusals; call before each transfer.
    func beginTransfer() {
        if !refusals.isEmpty { refusals.removeAll() }
    }

    /// The `CURLOPT_RESOLVE` list for `entries`, built on first use and kept.
    func resolveList(for entries: [String]) -> UnsafeMutablePointer<curl_slist>? {
        if entries != resolveEntries || resolveList == nil {
            if let resolveList { curl_slist_free_all(resolveList) }
            var list: UnsafeMutablePointer<curl_slist>?
            for entry in entries { list = curl_slist_append(list, entry) }
            resolveList = list
            resolveEntries = entries
        }
        return resolveList
    }

    /// libcurl wants a socket for `address`: opens one when the policy allows the address,
    /// otherwise records why and refuses (libcurl then tries the next address, if any).
    func openSocket(purpose: curlsocktype, address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let family = address.pointee.family
        guard let peer = Self.peer(of: address) else {
            refusals.append((.unixSocket(path: "(unknown address family \(family))"), "an address that cannot be checked"))
            return CURL_SOCKET_BAD
        }
        if let reason = policy.refusal(of: peer) {
            refusals.append((peer, reason))
            return CURL_SOCKET_BAD
        }
        // What libcurl would do itself, plus close-on-exec so that a forked child never
        // inherits the connection.
        return socket(family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
    }

    /// The address inside libcurl's `curl_sockaddr` (its storage is large enough for every family).
    static func peer(of address: UnsafeMutablePointer<curl_sockaddr>) -> PeerAddress? {
        guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) else { return nil }
        let storage = UnsafeRawPointer(address) + offset
        let length = Int(address.pointee.addrlen)
        switch address.pointee.family {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            let socketAddress = storage.loadUnaligned(as: sockaddr_in.self)
            return .ip(IPAddress(v4: UInt32(bigEndian: socketAddress.sin_addr.s_addr)))
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            var bytes = storage.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            return withUnsafeBytes(of: &bytes) { IPAddress(bytes: $0).map(PeerAddress.ip) }
        case AF_UNIX:
            guard let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path),
                  length > pathOffset else { return nil }
            let path = UnsafeRawBufferPointer(start: storage + pathOffset, count: length - pathOffset)
            return .unixSocket(path: String(decoding: path.prefix { $0 != 0 }, as: UTF8.self))
        default:
            return nil
        }
    }
}

let curlOpenSocketCallback: ccurl_opensocket_callback = { clientp, purpose, address in
    guard let clientp, let address else { return CURL_SOCKET_BAD }
    return Unmanaged<ConnectionContext>.fromOpaque(clientp)._withUnsafeGuaranteedRef {
        $0.openSocket(purpose: purpose, address: address)
    }
}
