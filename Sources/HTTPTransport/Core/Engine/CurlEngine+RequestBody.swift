import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension CurlEngine {
    /// How the request's method and body reach libcurl; the body's source goes to the
    /// transfer's state (`TransferState.source`, which the read callback reads, or which frees
    /// a multipart body with the transfer).
    func bodyOption(for request: RawRequest, _ transfer: CurlTransfer, number: UInt64) throws(HTTPTransportError) -> BodyOption {
        let state = transfer.state
        // CURLOPT_CUSTOMREQUEST for every method but POST (which the body options imply).
        let custom = request.method == .post ? nil : request.method.rawValue
        switch request.body {
        case nil:
            switch request.method {
            case .get: return .get
            case .head: return .head
            case .post, .put, .patch:
                // An empty body, with Content-Length: 0.
                state.source = DataSource(Data())
                return .streamed(method: custom, size: 0)
            default: return .bodiless(method: request.method.rawValue)
            }
        case .data(let data) where !data.isEmpty && data.count <= BodyOption.copiedBodyLimit:
            return .copied(method: custom, body: data)
        case .data(let data):
            state.source = DataSource(data)
            return .streamed(method: custom, size: Int64(data.count))
        case .file(let fileURL):
            let descriptor = try UploadFile.open(fileURL, url: transfer.url)
            state.source = FileSource(descriptor: descriptor)
            var info = stat()
            let isRegular = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
            return .streamed(method: custom, size: isRegular ? Int64(info.st_size) : -1)
        case .stream(let body):
            state.source = StreamedUpload(body, timeout: request.timeout, cancellation: state.control.cancellation)
            return .streamed(method: custom, size: body.length ?? -1)
        case .multipart(let parts):
            // Parts set by a custom encoding or an interceptor are checked here too.
            try HeaderFieldRules.check(parts: parts, url: transfer.url)
            let mime = try MultipartBuilder.build(parts, on: transfer.handle, url: transfer.url)
            state.source = MimeSource(mime)
            return .multipart(method: custom, mime: TransferResource(transfer: number, pointer: UnsafeMutableRawPointer(mime)))
        }
    }
}
