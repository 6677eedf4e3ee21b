import Foundation
import XCTest

/// A fake Redis on 127.0.0.1 that answers every command correctly but only after `delay`
/// seconds: `+OK` to AUTH and SELECT, a digest to SCRIPT LOAD and `{0, 0}` to a script. It
/// serves one connection at a time until `stop()`.
final class SlowRedisPeer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let delay: TimeInterval
    private let done = DispatchSemaphore(value: 0)

    init(delay: TimeInterval) throws {
        self.delay = delay
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        listener = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound, listen(descriptor, 8) == 0 else { throw XCTSkip("cannot listen on 127.0.0.1") }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in serve() }
    }

    var url: URL { URL(string: "redis://:secret@127.0.0.1:\(port)/1")! }

    /// Closes the listener and waits for the serving thread to end.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        done.wait()
        close(listener)
    }

    private func serve() {
        defer { done.signal() }
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            answer(client)
            close(client)
        }
    }

    /// Answers each command read (one per read: hiredis sends one and waits) after the delay.
    private func answer(_ client: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        for _ in 0..<100 {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return }
            let command = String(decoding: buffer[0..<count], as: UTF8.self).uppercased()
            let reply = if command.contains("SCRIPT") {
                "$40\r\n" + String(repeating: "a", count: 40) + "\r\n"
            } else if command.contains("EVAL") {
                "*2\r\n:0\r\n:0\r\n"
            } else {
                "+OK\r\n"
            }
            Thread.sleep(forTimeInterval: delay)  // the slowness under test, not synchronisation
            guard send(client, reply, reply.utf8.count, Int32(MSG_NOSIGNAL)) == reply.utf8.count else { return }
        }
    }
}
