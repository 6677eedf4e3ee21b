import Foundation
import HTTPTransport
import Synchronization

/// A network step (`HTTPSendStep`, `Session.Configuration.networkSteps`): it sees every request
/// that goes to the network, token refreshes and redirect hops included, and its response as
/// it came. This one writes each exchange down, answers `/status` by itself, and gives a 503
/// with a short `Retry-After` one more try after that wait — the same code for blocking and
/// async sends: it says what it wants (answer, forward, wait), the send does the waiting.
struct WireLogStep: HTTPSendStep {
    let log: WireLog

    /// What the step keeps about one send: the request, and whether it tried once more.
    struct Exchange {
        let request: RawRequest
        var triedAgain = false
    }

    func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Exchange, action: HTTPSendAction) {
        if request.url.path.hasSuffix("/status") {
            log.add("\(request.method.rawValue) \(request.url.path) → answered by the step")
            return (Exchange(request: request), .answer(RawResponse(request: request, statusCode: .ok, data: Data("up".utf8))))
        }
        return (Exchange(request: request), .forward(request))
    }

    func resume(_ exchange: inout Exchange, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
        let status = response.statusCode.map { String($0.rawValue) } ?? "no status"
        log.add("\(exchange.request.method.rawValue) \(exchange.request.url.path) → \(status)")
        if !exchange.triedAgain, response.statusCode?.rawValue == 503,
           let seconds = response.headers["Retry-After"].flatMap(Double.init), seconds <= 1 {
            exchange.triedAgain = true
            return .wait(until: .now + .milliseconds(Int(seconds * 1000)))
        }
        return .answer(response)
    }

    func resume(_ exchange: inout Exchange, afterWaiting completed: Bool, context: HTTPSendContext) -> HTTPSendAction {
        completed ? .forward(exchange.request) : .fail(HTTPTransportError(code: .cancelled, message: "cancelled while waiting"))
    }
}

/// The lines `WireLogStep` wrote, behind a lock (sends run on many threads).
final class WireLog: Sendable {
    private let lines = Mutex<[String]>([])

    func add(_ line: String) { lines.withLock { $0.append(line) } }

    var all: [String] { lines.withLock { $0 } }
}
