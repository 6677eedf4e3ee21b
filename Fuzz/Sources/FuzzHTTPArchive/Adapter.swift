import Foundation
import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    /// The archive of one exchange, as `HTTPArchiveRecorder` writes it.
    static func record(_ response: RawResponse) throws -> Data {
        let recorder = HTTPArchiveRecorder()
        _ = recorder.intercept(response: response)
        return try recorder.archiveData()
    }

    /// A replay engine for `data`, or the error that refused it.
    static func engine(_ data: Data) -> Result<HTTPArchiveEngine, HTTPTransportError> {
        do {
            return .success(try HTTPArchiveEngine(data: data))
        } catch let error as HTTPTransportError {
            return .failure(error)
        } catch {
            return .failure(HTTPTransportError(code: .other, message: "not an HTTPTransportError: \(error)"))
        }
    }

    static func replay(_ request: RawRequest, with engine: HTTPArchiveEngine) -> RawResponse {
        engine.execute(request, control: TransferControl())
    }

    /// A body as the recorder hides its secrets.
    static func redactedBody(_ body: Data, contentType: String?) -> Data {
        LogRedaction.default.redactedBody(body, contentType: contentType)
    }
}
