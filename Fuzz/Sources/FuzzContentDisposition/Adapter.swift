import Foundation
@testable import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    /// `HTTPResponse.suggestedFilename` of a response carrying this `Content-Disposition`.
    static func suggestedFilename(contentDisposition: String) -> String? {
        let request = RawRequest(url: URL(fileURLWithPath: "/"))
        return HTTPResponse(httpStatus: HTTPStatusCode(rawValue: 200),
                            headers: HTTPHeaders([HTTPHeaders.Field(name: "Content-Disposition", value: contentDisposition)]),
                            request: request).suggestedFilename
    }

    /// The sanitizer alone, applied to any name.
    static func sanitizedFilename(_ name: String) -> String? { ContentDisposition.sanitizedFilename(name) }

    static let maximumNameLength = ContentDisposition.maximumNameLength
}
