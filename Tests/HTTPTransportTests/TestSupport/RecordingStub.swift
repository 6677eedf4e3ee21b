import Foundation
import HTTPTransport

/// A `StubEngine` that records every request reaching it (after the interceptors and the hop
/// rules) and answers with `answer`: the pipeline's rules, tested without a network.
final class RecordingStub: @unchecked Sendable {
    private let answer: @Sendable (RawRequest) -> RawResponse
    private let seen = Recorder<RawRequest>()

    init(_ answer: @escaping @Sendable (RawRequest) -> RawResponse = { RawResponse(request: $0, statusCode: .ok, data: Data()) }) {
        self.answer = answer
    }

    /// A stub answering each URL (`absoluteString`) from `routes`, and 200 for any other.
    convenience init(routes: [String: @Sendable (RawRequest) -> RawResponse]) {
        self.init { request in
            routes[request.url.absoluteString]?(request) ?? RawResponse(request: request, statusCode: .ok, data: Data())
        }
    }

    /// The requests the engine received, in order.
    var requests: [RawRequest] { seen.values }

    /// A transport whose session sends through this stub.
    func transport(configuration: Session.Configuration = Session.Configuration(),
                   requestInterceptors: [any HTTPRequestInterceptor] = [],
                   responseInterceptors: [any HTTPResponseInterceptor] = [ClarifyErrorInterceptor()],
                   useDefaultValidation: Bool = true) -> HTTPTransport {
        let engine = StubEngine { [seen, answer] request in
            seen.add(request)
            return answer(request)
        }
        return HTTPTransport(session: Session(configuration: configuration, engine: engine),
                             requestInterceptors: requestInterceptors, responseInterceptors: responseInterceptors,
                             useDefaultValidation: useDefaultValidation)
    }

    /// A redirect (`status`) to `location` (no `Location` header when nil).
    static func redirect(_ request: RawRequest, _ status: Int = 302, to location: String?) -> RawResponse {
        var headers = HTTPHeaders()
        if let location { headers.add("Location", location) }
        return RawResponse(request: request, statusCode: HTTPStatusCode(rawValue: status), headers: headers,
                           data: Data("moved".utf8))
    }
}
