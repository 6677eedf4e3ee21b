import CHiredis
import Foundation

/// A Redis reply, as hiredis reads it.
enum RedisReply: Sendable, Equatable {
    case integer(Int)
    case bytes([UInt8])
    case status(String)
    case error(String)
    case null
    case array([RedisReply])

    init(_ reply: UnsafePointer<redisReply>) {
        switch reply.pointee.type {
        case REDIS_REPLY_INTEGER:
            self = .integer(Int(truncatingIfNeeded: reply.pointee.integer))
        case REDIS_REPLY_STRING, REDIS_REPLY_STATUS, REDIS_REPLY_ERROR:
            let bytes = reply.pointee.str.map { pointer in
                Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                                          count: reply.pointee.len))
            } ?? []
            switch reply.pointee.type {
            case REDIS_REPLY_STRING: self = .bytes(bytes)
            case REDIS_REPLY_STATUS: self = .status(String(decoding: bytes, as: UTF8.self))
            default: self = .error(String(decoding: bytes, as: UTF8.self))
            }
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            for index in 0..<reply.pointee.elements {
                if let element = reply.pointee.element[index] { elements.append(RedisReply(element)) } else { elements.append(.null) }
            }
            self = .array(elements)
        default:
            self = .null
        }
    }

    var integer: Int? {
        switch self {
        case .integer(let value): value
        case .bytes(let bytes): Int(String(decoding: bytes, as: UTF8.self))
        default: nil
        }
    }

    var text: String? {
        if case .bytes(let bytes) = self { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }
}

/// One hiredis connection: blocking, with the connect and every read and write bounded by a
/// deadline. Used by one thread at a time (`RedisConnections` hands them out).
final class RedisConnection {
    private let context: UnsafeMutablePointer<redisContext>
    /// When the exchange under way must be over (monotonic seconds, `now()`): each command's
    /// socket time-out is what is left of it, so that connecting, logging in, selecting the
    /// database, loading a script and running it take `timeout` together, not each.
    var deadline: TimeInterval

    /// Resolves the host name, connects, logs in and selects the database, all before `deadline`.
    init(_ endpoint: RedisEndpoint, deadline: TimeInterval, resolver: RedisResolver) throws(RedisFailure) {
        self.deadline = deadline
        let made: UnsafeMutablePointer<redisContext>?
        switch endpoint.address {
        case .tcp(let host, let port):
            let address = try resolver.address(of: host, before: deadline)
            made = redisConnectWithTimeout(address, Int32(port), Self.timeval(deadline - Self.now()))
        case .unix(let path):
            made = redisConnectUnixWithTimeout(path, Self.timeval(deadline - Self.now()))
        }
        guard let made else { throw RedisFailure("hiredis could not allocate a connection") }
        // From here a failure frees the context in deinit (a class's init that throws after
        // setting every property still runs it).
        context = made
        guard made.pointee.err == 0 else { throw RedisFailure("cannot connect: \(Self.errorText(made))") }
        try logIn(endpoint)
    }

    deinit { redisFree(context) }

    private func logIn(_ endpoint: RedisEndpoint) throws(RedisFailure) {
        if let password = endpoint.password {
            let command = endpoint.user.map { ["AUTH", $0, password] } ?? ["AUTH", password]
            if case .error(let message) = try run(command.map { Array($0.utf8) }) {
                throw RedisFailure("the server refused the credentials (\(message.split(separator: " ").first ?? ""))")
            }
        }
        if endpoint.database != 0, case .error(let message) = try run([Array("SELECT".utf8), Array(String(endpoint.database).utf8)]) {
            throw RedisFailure("cannot select database \(endpoint.database): \(message)")
        }
    }

    /// Sends one command and reads its reply; throws when the connection failed or timed out
    /// (it is then unusable). An error reply is a reply.
    func run(_ arguments: [[UInt8]]) throws(RedisFailure) -> RedisReply {
        let left = deadline - Self.now()
        guard left > 0 else { throw RedisFailure("timed out") }
        guard redisSetTimeout(context, Self.timeval(left)) == REDIS_OK else { throw RedisFailure("cannot set the socket time-out") }
        let reply = Self.withArgv(arguments) { argv, lengths in
            redisCommandArgv(context, Int32(arguments.count), argv, lengths)
        }
        guard let reply else { throw RedisFailure(Self.errorText(context)) }
        defer { freeReplyObject(reply) }
        return RedisReply(reply.assumingMemoryBound(to: redisReply.self))
    }

    private static func withArgv<Result>(
        _ arguments: [[UInt8]],
        _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int>?) -> Result
    ) -> Result {
        let copies: [UnsafeMutablePointer<CChar>] = arguments.map { bytes in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, bytes.count))
            bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress { UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: raw.count) }
            }
            return copy
        }
        defer { copies.forEach { $0.deallocate() } }
        var argv = copies.map { UnsafePointer<CChar>?(UnsafePointer($0)) }
        let lengths = arguments.map(\.count)
        return argv.withUnsafeMutableBufferPointer { argv in
            lengths.withUnsafeBufferPointer { lengths in body(argv.baseAddress, lengths.baseAddress) }
        }
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { raw in
            let bytes = raw.prefix { $0 != 0 }
            let text = String(decoding: bytes, as: UTF8.self)
            if context.pointee.err == REDIS_ERR_IO, errno == EAGAIN || errno == EWOULDBLOCK { return "timed out" }
            return text.isEmpty ? "connection lost" : text
        }
    }

    /// Monotonic seconds.
    static func now() -> TimeInterval {
        TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    private static func timeval(_ seconds: TimeInterval) -> timeval {
        // Within a day: a time-out of 1e13 seconds or more would not fit an Int of microseconds.
        let micros = Int(min(max(0.001, seconds), 86_400) * 1_000_000)
        return Glibc.timeval(tv_sec: micros / 1_000_000, tv_usec: micros % 1_000_000)
    }
}

/// Why a Redis round trip failed (no reply: the store is out).
struct RedisFailure: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
