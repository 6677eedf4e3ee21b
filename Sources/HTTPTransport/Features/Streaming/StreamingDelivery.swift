import Foundation

extension StreamingBody {
    /// The pipeline's side of a streamed body, after the engine returned: an engine that gives
    /// bodies whole (a `StubEngine`, a recording) has its body handed to the consumer now, as
    /// the libcurl engine did while it arrived; a failed status keeps only the first
    /// `errorBodyLimit` bytes, as with libcurl. The stream's rules and hop count are its own
    /// (this body's), whatever request the response carries (a step may answer on a request
    /// value of its own).
    func finish(_ response: inout RawResponse) {
        guard response.error == nil, let status = response.statusCode?.rawValue else { return }
        guard streams(status: status, headers: response.headers) else {
            if !(200..<300).contains(status), !RedirectRule.isRedirect(status), let data = response.data,
               data.count > Self.errorBodyLimit {
                response.data = data.prefix(Self.errorBodyLimit)
            }
            return
        }
        // (The consumer ignores a head it was told about already.)
        var head = response
        head.data = nil
        head.metrics.redirectCount = redirects
        if let error = consumer.headArrived(head) {
            response.error = error
            return
        }
        guard let data = response.data else { return }
        response.data = nil
        if !data.isEmpty, consumer.receive(data, evenIfFull: true) == .stop {
            response.error = HTTPTransportError(code: .cancelled, message: "The streaming handler stopped the transfer.",
                                                url: response.request.url.absoluteString)
        }
    }
}
