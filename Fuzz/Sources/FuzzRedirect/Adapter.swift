import Foundation
@testable import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    enum Outcome {
        case notFollowed
        case next(url: URL, method: String)
        case refused(insecure: Bool, message: String)
    }

    /// What the pipeline does with a redirect response carrying `location` to a request for `url`.
    static func redirect(from url: URL, method: String, status: Int, location: String, allowsInsecure: Bool) -> Outcome {
        let request = RawRequest(method: HTTPRequest.HTTPMethod(rawValue: method) ?? .get, url: url)
        let response = RawResponse(request: request, statusCode: HTTPStatusCode(rawValue: status),
                                   headers: HTTPHeaders([HTTPHeaders.Field(name: "Location", value: location)]))
        switch RedirectRule.nextRequest(after: request, response: response, allowsInsecureRedirects: allowsInsecure) {
        case nil: return .notFollowed
        case .success(let next)?: return .next(url: next.url, method: next.method.rawValue)
        case .failure(let error)?: return .refused(insecure: error.code == .insecureRedirect, message: error.message)
        }
    }

    static let redirectStatuses = [301, 302, 303, 307, 308]
}
