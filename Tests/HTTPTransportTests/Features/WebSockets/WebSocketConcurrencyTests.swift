import Foundation
@testable import HTTPTransport
import XCTest

/// Many senders at once, blocking sockets on worker threads, a cancelled receive, back-pressure,
/// and many idle sockets on one session's transfer loop.
final class WebSocketConcurrencyTests: XCTestCase, WebSocketFixtures {
    func testSendsFromManyTasksGoOutWholeAndInEachSendersOrder() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.ws("/echo")))
        let senders = 16, perSender = 6
        try await withThrowingTaskGroup(of: Void.self) { group in
            for sender in 0..<senders {
                group.addTask {
                    for sequence in 0..<perSender {
                        // 100 KB of one byte: two messages' frames interleaving would mix bytes.
                        var payload = Data(repeating: UInt8(sender), count: 100_000)
                        payload[0] = UInt8(sequence)
                        try await socket.send(.binary(payload))
                    }
                }
            }
            try await group.waitForAll()
        }
        var next = [Int](repeating: 0, count: senders)
        for _ in 0..<(senders * perSender) {
            guard case .binary(let data) = try await socket.receive() else { return XCTFail("expected binary") }
            let sender = Int(data[1])
            XCTAssertTrue(data.dropFirst().allSatisfy { $0 == UInt8(sender) }, "frames of two messages mixed")
            XCTAssertEqual(Int(data[0]), next[sender], "sender \(sender)'s messages out of order")
            next[sender] += 1
        }
        XCTAssertEqual(next, [Int](repeating: perSender, count: senders))
        try await socket.close()
    }

    func testBlockingSocketsOnWorkerThreads() throws {
        let peer = try peer()
        let transport = HTTPTransport()
        let failures = Protected<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let threads = 4
        for worker in 0..<threads {
            Thread {
                defer { done.signal() }
                do {
                    let socket = try transport.webSocket(request: HTTPRequest(endpoint: peer.ws("/echo")))
                    for number in 0..<20 {
                        try socket.send(.text("\(worker)-\(number)"))
                        let echoed = try socket.receive()
                        if echoed != .text("\(worker)-\(number)") { failures.withLock { $0.append("\(worker): \(String(describing: echoed))") } }
                    }
                    try socket.close()
                } catch {
                    failures.withLock { $0.append("\(worker): \(error)") }
                }
            }.start()
        }
        for _ in 0..<threads { XCTAssertEqual(done.wait(timeout: .now() + 30), .success) }
        XCTAssertEqual(failures.withLock { $0 }, [])
    }

    func testCancellingATaskWaitingInReceiveLeavesTheSocketOpen() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.ws("/echo")))
        let waiting = Task { () -> HTTPTransportError.Code? in
            do {
                _ = try await socket.receive()
                return nil
            } catch {
                return (error as? HTTPTransportError)?.code
            }
        }
        waiting.cancel()
        let code = await waiting.value
        XCTAssertEqual(code, .cancelled)
        try await assertEchoes(socket, "after the cancel")
        try await socket.close()
    }

    func testReceivesCancelledOverAndOverOnAnIdleSocketAreNotKept() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.ws("/echo")))
        // (A receive with a time-out, on a feed that is quiet: each cancelled receive is over.)
        for _ in 0..<500 {
            let waiting = Task { _ = try? await socket.receive() }
            waiting.cancel()
            await waiting.value
        }
        XCTAssertLessThanOrEqual(socket.link.waitingReceivers, 1)
        try await assertEchoes(socket, "after 500 cancels")
        try await socket.close()
    }

    func testAReaderThatStopsMakesTheSocketStopReading() async throws {
        let peer = try peer()
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("ws-flood-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        // 96 MiB offered in 64 KiB messages; while nobody receives, the socket holds about 1 MiB
        // and the kernel's buffers the rest of what the server could send.
        let count = 1536, size = 65536
        let socket = try await HTTPTransport().webSocket(
            HTTPRequest(endpoint: peer.ws("/flood?count=\(count)&size=\(size)&report=\(report.path)")))
        var sent = 0
        var unchanged = 0
        for _ in 0..<200 where unchanged < 5 {
            try await Task.sleep(for: .milliseconds(20))
            let now = Self.number(in: report.path)
            unchanged = now == sent && now > 0 ? unchanged + 1 : 0
            sent = now
        }
        XCTAssertLessThan(sent, count / 2, "the server sent \(sent) of \(count) messages to a reader that took none")
        for expected in 0..<count {
            guard case .binary(let data) = try await socket.receive() else { return XCTFail("expected binary") }
            XCTAssertEqual(data.count, size)
            let number = data.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            if number != expected { return XCTFail("message \(number) arrived in place of \(expected)") }
        }
        try await socket.close()
    }

    func testAThousandIdleSocketsWaitOnAFewThreads() async throws {
        let peer = try peer()
        let transport = HTTPTransport()
        let before = Self.threadCount()
        var sockets: [WebSocket] = []
        for _ in 0..<1000 { sockets.append(try await transport.webSocket(HTTPRequest(endpoint: peer.ws("/echo")))) }
        let open = Self.threadCount()
        print("WebSockets: \(sockets.count) open idle sockets; process threads \(before) before, \(open) with them open")
        XCTAssertLessThan(open - before, 8)
        // Every one still answers.
        try await assertEchoes(sockets[0], "first")
        try await assertEchoes(sockets[999], "last")
        for socket in sockets { try await socket.close() }
    }

    /// The number a file holds (0: none yet). Read with POSIX calls: Foundation's file reading
    /// leaks its buffer when the file changes under it (LeakSanitizer reports it).
    static func number(in path: String) -> Int {
        let file = open(path, O_RDONLY)
        guard file >= 0 else { return 0 }
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = read(file, &bytes, bytes.count)
        return count > 0 ? Int(String(decoding: bytes[0..<count], as: UTF8.self)) ?? 0 : 0
    }

    /// This process's threads (/proc/self/task).
    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
}
