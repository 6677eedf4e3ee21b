import Foundation

/// Turns a Redis host name into an address within a deadline. `getaddrinfo` has no time-out of
/// its own (a name server that does not answer holds it for seconds), so the look-up runs on a
/// thread of its own, one at a time per store (callers meanwhile wait for the same answer), and
/// an answer that comes too late fails the connection as timed out.
final class RedisResolver: @unchecked Sendable {
    /// The numeric address of a host name, or nil; blocking, for as long as it takes.
    private let lookUp: @Sendable (String) -> String?
    private let lock = NSLock()
    private var pending: [String: LookUpAnswer] = [:]

    init(lookUp: @escaping @Sendable (String) -> String? = RedisResolver.systemLookUp) {
        self.lookUp = lookUp
    }

    /// `host` itself when it is an address, else its address, looked up before `deadline`.
    func address(of host: String, before deadline: TimeInterval) throws(RedisFailure) -> String {
        if Self.isNumeric(host) { return host }
        let answer = answer(for: host)
        guard answer.wait(until: deadline) else { throw RedisFailure("timed out resolving \(host)") }
        guard let address = answer.address else { throw RedisFailure("cannot resolve \(host)") }
        return address
    }

    private func answer(for host: String) -> LookUpAnswer {
        lock.lock()
        defer { lock.unlock() }
        if let answer = pending[host] { return answer }
        let answer = LookUpAnswer()
        pending[host] = answer
        let lookUp = lookUp
        Thread.detachNewThread { [self] in
            let address = lookUp(host)
            lock.lock()
            pending[host] = nil
            lock.unlock()
            answer.give(address)
        }
        return answer
    }

    private static func isNumeric(_ host: String) -> Bool {
        var bytes = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &bytes) == 1 || inet_pton(AF_INET6, host, &bytes) == 1
    }

    /// getaddrinfo's first IPv4 address, else its first (hiredis too tries IPv4 first).
    @Sendable static func systemLookUp(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var chosen = first
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            if entry.pointee.ai_family == AF_INET { chosen = entry; break }
            next = entry.pointee.ai_next
        }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(chosen.pointee.ai_addr, chosen.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0
        else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// One look-up's answer, waited for by any number of threads.
private final class LookUpAnswer: @unchecked Sendable {
    private let condition = NSCondition()
    private var done = false
    private var result: String?

    var address: String? {
        condition.lock()
        defer { condition.unlock() }
        return result
    }

    func give(_ address: String?) {
        condition.lock()
        result = address
        done = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the answer came before `deadline` (monotonic seconds).
    func wait(until deadline: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !done {
            let left = deadline - RedisConnection.now()
            guard left > 0, condition.wait(until: Date(timeIntervalSinceNow: left)) || done else { return done }
        }
        return true
    }
}
