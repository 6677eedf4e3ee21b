import Foundation

/// What the library's own request types keep beside their public fields: how many of their
/// interceptors came from a base request (so `with(interceptors:)` adds the request's own
/// before them), and a problem found by a builder that cannot throw (resolving the request then
/// fails with it, before anything is sent).
struct RequestNotes: Sendable, Hashable {
    var inheritedRequestInterceptors = 0
    var inheritedResponseInterceptors = 0
    /// Why the request cannot be sent, e.g. a cookie pair that would inject another cookie.
    var problem: String?
    /// Where the response body goes instead of memory, when the request says (a stream's
    /// consumer: `streaming(_:)`, `HTTPTransport.stream(_:)`).
    var bodyConsumer: BodyConsumerNote?
    /// The WebSocket the request's handshake opens (`HTTPTransport.webSocket(_:configuration:)`).
    var webSocket: WebSocketLink?
    /// Header fields sent after the request's `headers`, in order (`HTTPRequest.headerFields`).
    var headerFields = HTTPHeaders()
    /// Bytes sent as the raw body (`HTTPRequest.uploading(data:contentType:)`).
    var bodyData: Data?
    /// A body streamed as it is produced (`HTTPRequest.uploading(stream:length:)` and
    /// `uploading(length:producer:)`).
    var bodyStream: StreamedBody?

    /// The notes a request built on `base` starts with.
    init(base: HTTPRequest?) {
        inheritedRequestInterceptors = base?.requestInterceptors.count ?? 0
        inheritedResponseInterceptors = base?.responseInterceptors.count ?? 0
        problem = base?.notes.problem
        if let base { headerFields = base.notes.headerFields }
    }
}

/// The library's request types: their notes, and their wire form with a session's parsed
/// endpoints (a request type of a user's own resolves through `resolve()` alone).
protocol NotedRequest: HTTPRequestEnvelope {
    var notes: RequestNotes { get set }
    /// The wire form, the endpoint parsed through `endpoints` when given.
    func wireRequest(endpoints: ParsedEndpoints?) throws(HTTPTransportError) -> RawRequest
}

extension HTTPRequestEnvelope {
    /// The request's notes (empty for a request type of a user's own).
    var recordedNotes: RequestNotes { (self as? any NotedRequest)?.notes ?? RequestNotes(base: nil) }

    /// A copy with changed notes (unchanged for a request type of a user's own).
    func changingNotes(_ change: (inout RequestNotes) -> Void) -> Self {
        guard var noted = self as? any NotedRequest else { return self }
        change(&noted.notes)
        return noted as? Self ?? self
    }
}
