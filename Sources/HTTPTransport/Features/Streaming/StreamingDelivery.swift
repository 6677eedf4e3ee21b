import Foundation

extension StreamingBody {
    /// The pipeline's side of a streamed body, after the engine returned: an engine that gives
    /// bodies whole (a `StubEngine`, a recording) has its body handed to the consumer now, as
    /// the libcurl engine did while it arrived; a failed status keeps only the first
    /// `errorBodyLimit` bytes, as with libcurl.
    static func finish(_ response: inout RawResponse) {
        guard let body = response.request.streaming, response.error == nil,
              let status = response.statusCode?.rawValue else { return }
        guard body.streams(status: status, headers: response.headers) else {
            if !(200..<300).contains(status), !RedirectRule.isRedirect(status), let data = response.data,
               data.count > errorBodyLimit {
                response.data = data.prefix(errorBodyLimit)
            }
            return
        }
        // (The consumer ignores a head it was told about already.)
        var head = response
        head.data = nil
        head.metrics.redirectCount = body.redirects
        if let error = body.consumer.headArrived(head) {
            response.error = error
            return
        }
        guard let data = response.data else { return }
        response.data = nil
        if !data.isEmpty, body.consumer.receive(data, evenIfFull: true) == .stop {
            response.error = HTTPTransportError(code: .cancelled, message: "The streaming handler stopped the transfer.",
                                                url: response.request.url.absoluteString)
        }
    }
}
