import Foundation

/// A response whose body arrives as it comes, from `HTTPTransport.stream(_:)`: the head
/// (status, headers, the request as sent) at once, then the body as `Data` chunks (`body`) or
/// as text lines (`lines`), read once. While the reader does not take chunks the transfer is
/// paused, so a slowly read body of any size holds under 1 MiB in memory.
///
/// Breaking out of the loop, cancelling the reading task, `cancel()` or dropping the stream
/// (and its `body`/`lines`) stops the transfer at once and closes its connection.
///
/// ```swift
/// let stream = try await transport.stream(HTTPRequest(endpoint: "https://example.com/export.ndjson"))
/// for try await line in stream.lines {
///     try handle(JSONSerialization.jsonObject(with: Data(line.utf8)))
/// }
/// ```
public final class HTTPResponseStream: Sendable {
    /// The response status.
    public let httpStatus: HTTPStatusCode
    /// The response headers in order, every value kept.
    public let rawHeaders: HTTPHeaders
    /// The request as it was sent (after interceptors and redirects).
    public let request: RawRequest
    /// Timing and size figures as far as known when the head arrived.
    public let metrics: TransferMetrics
    let channel: StreamChannel

    init(head: RawResponse, channel: StreamChannel) {
        httpStatus = head.statusCode ?? HTTPStatusCode(rawValue: 0)
        rawHeaders = head.headers
        request = head.request
        metrics = head.metrics
        self.channel = channel
    }

    deinit { channel.cancel() }

    /// One entry per header name; repeated values joined with `", "`.
    public var headers: [String: String] { rawHeaders.dictionary }

    /// The value of a header, case-insensitively (repeated values joined with `", "`).
    public func header(named name: String) -> String? { rawHeaders[name] }

    /// Every value of a header, in order.
    public func headerValues(for name: String) -> [String] { rawHeaders.values(name) }

    /// The body as it arrives, in order; read once (a second reading throws). A failure of the
    /// transfer (a stall, a cut connection) is thrown where the body ends.
    public var body: Body { Body(stream: self) }

    /// The body as UTF-8 lines: split on LF, a CR right before it dropped, the last line given
    /// even without LF, no empty line after a final LF; read once, like `body`.
    public var lines: Lines { Lines(body: body) }

    /// Stops the transfer now; a reader gets `.cancelled`.
    public func cancel() { channel.cancel() }

    /// The body of an `HTTPResponseStream`.
    public struct Body: AsyncSequence, Sendable {
        public typealias Element = Data
        public typealias Failure = HTTPTransportError
        let stream: HTTPResponseStream

        public func makeAsyncIterator() -> Iterator { Iterator(stream: stream, first: stream.channel.beginIteration()) }

        /// Reads the chunks; dropping it before the end stops the transfer.
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            public typealias Failure = HTTPTransportError
            /// Only the first iterator reads (and stops the transfer when dropped early): a second
            /// one only fails, and dropping it leaves the first reader alone.
            private let reading: Reading?
            private let url: String

            init(stream: HTTPResponseStream, first: Bool) {
                reading = first ? Reading(stream: stream) : nil
                url = stream.request.url.absoluteString
            }

            public mutating func next() async throws(HTTPTransportError) -> Data? {
                try await next(isolation: nil)
            }

            /// The next chunk, read on the caller's executor (`for try await` passes it): no hop
            /// off the caller's actor and back for each chunk.
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPTransportError) -> Data? {
                guard let reading else {
                    throw HTTPTransportError(code: .other, message: "A stream's body can be read once.", url: url)
                }
                return try await reading.stream.channel.next(isolation: actor)
            }
        }
    }

    /// The body of an `HTTPResponseStream` as lines.
    public struct Lines: AsyncSequence, Sendable {
        public typealias Element = String
        public typealias Failure = HTTPTransportError
        let body: Body

        public func makeAsyncIterator() -> Iterator { Iterator(chunks: body.makeAsyncIterator()) }

        /// Reads the lines; dropping it before the end stops the transfer.
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            public typealias Failure = HTTPTransportError
            private var chunks: Body.Iterator
            private var splitter = LineSplitter()
            private var ended = false

            init(chunks: Body.Iterator) { self.chunks = chunks }

            public mutating func next() async throws(HTTPTransportError) -> String? {
                try await next(isolation: nil)
            }

            /// The next line, read on the caller's executor (as `Body.Iterator.next(isolation:)`).
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPTransportError) -> String? {
                while true {
                    if let line = splitter.nextLine() { return line }
                    if ended { return nil }
                    if splitter.isOverlong {
                        throw HTTPTransportError(
                            code: .responseTooLarge,
                            message: "A line of the stream passed \(LineSplitter.maxLineLength) bytes without a line feed; read `body` for such data.")
                    }
                    guard let chunk = try await chunks.next(isolation: actor) else {
                        ended = true
                        return splitter.finish()
                    }
                    splitter.append(chunk)
                }
            }
        }
    }
}

/// Stops the transfer when the last iterator of a body goes away before the end (breaking out
/// of a `for try await` loop); keeps the stream alive while it is read.
final class Reading: Sendable {
    let stream: HTTPResponseStream

    init(stream: HTTPResponseStream) { self.stream = stream }

    deinit { stream.channel.cancel() }
}
