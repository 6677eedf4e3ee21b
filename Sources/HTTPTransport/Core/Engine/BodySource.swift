import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where a transfer's request body comes from, as libcurl's read callback reads it: one source
/// per transfer (`TransferState.source`), made from the request's one `RawRequest.Body` by
/// `CurlEngine.bodyOption`. Bytes in memory (`DataSource`), a file (`FileSource`), MIME parts
/// libcurl reads itself (`MimeSource`), or chunks produced while the body is sent
/// (`StreamedUpload`, for a producer closure or an async sequence). A new kind of body (an
/// OpenAPI `HTTPBody`, WebSocket frames) is one more source here, or a `StreamedBody` if it
/// comes in chunks.
protocol BodySource: AnyObject {
    /// Fills `buffer`: the byte count, 0 at the end, or libcurl's pause or abort value (with
    /// `state.storedError` set).
    func read(into buffer: UnsafeMutableRawBufferPointer, state: TransferState) -> Int
    /// Rewinds to `offset` (libcurl resends a request on a fresh connection when a reused one
    /// died); `false` when the source cannot.
    func seek(to offset: Int64) -> Bool
    /// The transfer is over: what the source holds is let go.
    func close()
    /// The streamed upload, when the body is produced while it is sent (the transfer loop
    /// resumes it when a chunk comes).
    var streamed: StreamedUpload? { get }
}

extension BodySource {
    func seek(to offset: Int64) -> Bool { false }
    func close() {}
    var streamed: StreamedUpload? { nil }
}

/// Bytes in memory, read from an offset (an empty body included: `Content-Length: 0`).
final class DataSource: BodySource {
    private let data: Data
    private var offset = 0

    init(_ data: Data) { self.data = data }

    func read(into buffer: UnsafeMutableRawBufferPointer, state: TransferState) -> Int {
        let count = min(buffer.count, data.count - offset)
        guard count > 0 else { return 0 }
        data.withUnsafeBytes { source in
            if let base = source.baseAddress, let target = buffer.baseAddress {
                target.copyMemory(from: base + offset, byteCount: count)
            }
        }
        offset += count
        return count
    }

    func seek(to offset: Int64) -> Bool {
        guard offset >= 0, offset <= Int64(data.count) else { return false }
        self.offset = Int(offset)
        return true
    }
}

/// An open file, read from disk as the body and closed with the transfer.
final class FileSource: BodySource {
    private(set) var descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close() }

    func read(into buffer: UnsafeMutableRawBufferPointer, state: TransferState) -> Int {
        guard descriptor >= 0 else { return 0 }
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            state.storedError = HTTPTransportError(code: .fileIO, message: "Reading the upload failed: \(String(cString: strerror(errno)))",
                                                   url: state.requestURL)
            return ccurl_readfunc_abort()
        }
    }

    func seek(to offset: Int64) -> Bool {
        descriptor >= 0 && lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset)
    }

    func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }
}

/// A `multipart/form-data` body (`CURLOPT_MIMEPOST`): libcurl reads its parts itself, so the
/// read callback never asks; the MIME structure is freed with the transfer.
final class MimeSource: BodySource {
    private(set) var mime: OpaquePointer?

    init(_ mime: OpaquePointer) { self.mime = mime }

    deinit { close() }

    func read(into buffer: UnsafeMutableRawBufferPointer, state: TransferState) -> Int { 0 }

    func close() {
        guard let mime else { return }
        curl_mime_free(mime)
        self.mime = nil
    }
}

extension StreamedUpload: BodySource {
    var streamed: StreamedUpload? { self }
}
