// --feed: the jobs arrive as an NDJSON stream (one `{"job": N}` line each) that the producer
// follows with `HTTPRequest.streaming`: each line is queued the moment it arrives, while the
// rest of the feed is still on its way; the body is never held whole.
import ExampleServer
import Foundation
import HTTPTransport
import Synchronization

/// The API's feed: `count` job lines a few milliseconds apart (0: until the client goes away).
func jobFeed(count: Int) -> ExampleServer.Response {
    .streamed(headers: [("Content-Type", "application/x-ndjson")]) { send in
        var id = 1
        while count == 0 || id <= count {
            guard send(Data(#"{"job":\#(id)}"#.utf8) + Data("\n".utf8)) else { return }
            id += 1
            usleep(2000)
        }
    }
}

/// The feed as WebSocket text messages, one `{"job": N}` each, then a close (0: until the client goes).
func jobFeed(over request: ExampleServer.Request, count: Int) -> ExampleServer.Response {
    .webSocket(for: request) { peer in
        var id = 1
        while count == 0 || id <= count {
            guard peer.send(text: #"{"job":\#(id)}"#) else { return }
            id += 1
            usleep(2000)
        }
        peer.close()
    }
}

/// Follows the feed over a WebSocket with the blocking forms (the handshake passes the
/// transport's interceptors, limits and breaker like any send); a stop ends it with 1001.
func followWebSocketFeed() {
    var received = 0
    do {
        let socket = try transport.webSocket(request: HTTPRequest(endpoint: "/feed/ws", base: api).with(timeout: 10))
        while let message = try socket.receive() {
            guard case .text(let text) = message, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  let id = object["job"] as? Int else { continue }
            guard queue.push(Job(id: id)) else {
                try? socket.close(code: .goingAway)
                break
            }
            received += 1
        }
    } catch {
        if error.code != .cancelled { log.error("the WebSocket feed failed: \(error.message)") }
    }
    print("feed: \(received) jobs arrived over the WebSocket")
}

/// Follows the feed on the calling thread, queueing each job as its line arrives; stops early
/// (the handler answers `false`) once the queue is closed by a stop. With --ws-feed, over a
/// WebSocket when this libcurl has them.
func followFeed() {
    if options.webSocketFeed {
        if HTTPTransport.supportsWebSockets { return followWebSocketFeed() }
        print("feed: this libcurl has no WebSockets (HTTPTransport.supportsWebSockets is false): following the NDJSON feed")
    }
    let partial = Mutex(Data())  // the start of a line whose end has not arrived yet
    let received = Atomic<Int>(0)
    let feed = HTTPRequest(endpoint: "/feed", base: api).with(timeout: 10)
    let result = transport.send(request: feed.streaming { chunk in
        let lines = partial.withLock { partial -> [Data] in
            partial.append(chunk)
            var lines: [Data] = []
            while let newline = partial.firstIndex(of: 0x0A) {
                lines.append(partial[partial.startIndex..<newline])
                partial.removeSubrange(partial.startIndex...newline)
            }
            return lines
        }
        for line in lines {
            guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
                  let id = object["job"] as? Int else { continue }
            guard queue.push(Job(id: id)) else { return false }  // stopping: end the feed
            received.add(1, ordering: .relaxed)
        }
        return true
    }, control: TransferControl(cancellation: stopper.cancellation))
    if let error = result.error, error.code != .cancelled {
        log.error("the feed failed: \(error.message)")
    }
    print("feed: \(received.load(ordering: .relaxed)) jobs arrived over the NDJSON stream")
}
