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

/// Follows the feed on the calling thread, queueing each job as its line arrives; stops early
/// (the handler answers `false`) once the queue is closed by a stop.
func followFeed() {
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
