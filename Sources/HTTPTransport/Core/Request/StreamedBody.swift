import Foundation

/// A request body produced while it is sent (`HTTPRequest.uploading(stream:length:)`,
/// `uploading(length:producer:)`): chunks from a synchronous producer or an async sequence,
/// never held whole. With `length` it is the `Content-Length` (a body of another length fails
/// the send with `.encodingFailed`); without, HTTP/1.1 sends it chunked.
///
/// A streamed body can be read once: it is never sent twice (no retry once a byte was read,
/// no resend by libcurl, no 307/308 followed). Read-ahead is bounded (`readAhead`), so a slow
/// connection slows the source.
public final class StreamedBody: Sendable, Hashable {
    /// The body's length in bytes, when known beforehand.
    public let length: Int64?
    let source: Source
    private let read = Locked(false)

    /// Where the chunks come from.
    enum Source: Sendable {
        /// The next chunk, nil at the end; called on the sending thread for blocking sends.
        case producer(@Sendable () throws -> Data?)
        /// Pulls an async sequence into a pipe, chunk by chunk, until it ends, throws or the
        /// pipe is closed.
        case sequence(@Sendable (UploadPipe) async -> Void)
    }

    /// The most bytes read ahead of what the connection took.
    static let readAhead = 1 << 20

    /// A body from a producer of chunks.
    init(length: Int64?, producer: @escaping @Sendable () throws -> Data?) {
        self.length = length.map { max(0, $0) }
        source = .producer(producer)
    }

    /// A body from an async sequence of chunks.
    init(length: Int64?, stream: some AsyncSequence<Data, any Error> & Sendable) {
        self.length = length.map { max(0, $0) }
        source = .sequence { pipe in
            do {
                for try await chunk in stream {
                    guard await pipe.put(chunk) else { return }
                }
                pipe.finish(throwing: nil)
            } catch {
                pipe.finish(throwing: error)
            }
        }
    }

    /// Whether a transfer started reading it (a retry or a redirect may not send it again).
    var wasRead: Bool { read.withLock { $0 } }

    /// Claims the body for a transfer: `false` when one already read it.
    func claim() -> Bool {
        read.withLock { wasRead in
            defer { wasRead = true }
            return !wasRead
        }
    }

    public static func == (lhs: StreamedBody, rhs: StreamedBody) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension HTTPRequest {
    /// A copy whose raw body is the chunks of `stream`, sent as they come (`length`: the
    /// `Content-Length`; without, HTTP/1.1 sends it chunked). The body is sent at most once:
    /// no retry once read, no 307/308 followed. A sequence that throws fails the send with
    /// `.encodingFailed`.
    public func uploading(stream: some AsyncSequence<Data, any Error> & Sendable, length: Int64? = nil) -> HTTPRequest {
        uploading(StreamedBody(length: length, stream: stream))
    }

    /// A copy whose raw body is the chunks `producer` returns (nil at the end), sent as they
    /// come; called on the sending thread for blocking sends, off the session's transfer loop
    /// for async ones. Same rules as `uploading(stream:length:)`.
    public func uploading(length: Int64? = nil, producer: @escaping @Sendable () throws -> Data?) -> HTTPRequest {
        uploading(StreamedBody(length: length, producer: producer))
    }

    private func uploading(_ body: StreamedBody) -> HTTPRequest {
        var copy = self
        copy.bodyFile = nil
        copy.notes.bodyData = nil
        copy.notes.bodyStream = body
        return copy
    }
}

extension RawRequest {
    /// Whether the request's body is streamed and a transfer read it already.
    var streamedBodyWasRead: Bool {
        if case .stream(let body) = body { return body.wasRead }
        return false
    }
}
