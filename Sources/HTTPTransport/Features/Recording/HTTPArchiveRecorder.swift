import Foundation

/// Records every exchange that passes it as an entry of a HAR 1.2 archive, the format browsers'
/// developer tools, proxies (mitmproxy, Charles, Fiddler) and API tools (Postman, Insomnia) read
/// and write. Replay the file with `HTTPArchiveEngine`.
///
/// Add it as a response interceptor; it sees every hop (a redirect's response too), failures
/// included, and keeps one entry per hop, in the order the exchanges ended. The request headers
/// are those libcurl sent (its `Host`, `User-Agent`, `Accept-Encoding`, … too), which turns
/// libcurl's verbose mode on for the transfers of a pipeline it is part of. Secrets are hidden by
/// the log rules of `redaction` (headers, user info and query values of URLs, JSON and form body
/// fields); a hidden `Cookie` or `Set-Cookie` keeps its cookie names and hides their values.
/// Media bodies that are not UTF-8 text (images, audio, fonts, …) are recorded in base64; a body
/// the rules cannot redact field by field is left out with a `comment` saying why (see
/// `LogRedaction.redactBody(_:contentType:)`). Safe to share across threads.
///
/// ```swift
/// let recorder = HTTPArchiveRecorder()
/// let transport = HTTPTransport(responseInterceptors: [ClarifyErrorInterceptor(), recorder])
/// _ = transport.send(request: HTTPRequest(endpoint: "https://api.example.com/user"))
/// try recorder.write(to: URL(fileURLWithPath: "session.har"))
/// ```
public final class HTTPArchiveRecorder: HTTPResponseInterceptor, RecordsSentRequestHead, Sendable {
    /// What is hidden in the archive.
    public let redaction: LogRedaction
    private let entries = Locked<[ArchiveEntry]>([])
    /// When the recording's page starts if no entry is older (an empty recording).
    private let created = Date()

    /// A recorder that hides secrets by `redaction`'s rules (the logs' defaults unless given).
    public init(redaction: LogRedaction = .default) {
        self.redaction = redaction
    }

    /// Successes and failures alike are recorded.
    public var interceptsSuccesses: Bool { true }

    /// Records the exchange and hands the response on unchanged.
    public func intercept(response: RawResponse) -> RawResponse {
        let entry = ArchiveEntry(response, redaction: redaction, now: Date())
        entries.withLock { $0.append(entry) }
        return response
    }

    /// The number of exchanges recorded so far.
    public var entryCount: Int { entries.withLock { $0.count } }

    /// The archive as HAR 1.2 JSON (UTF-8).
    public func archiveData() throws -> Data {
        let entries = entries.withLock { $0 }
        // ISO 8601 in UTC sorts as text.
        let start = entries.map(\.startedDateTime).min() ?? ArchiveEntry.timestamp(created)
        let document = ArchiveDocument(log: ArchiveLog(pages: [ArchivePage(startedDateTime: start)], entries: entries))
        let encoder = JSONEncoder()
        // Sorted keys: the same archive gives the same bytes (Chrome sorts its exports too).
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(document)
        } catch {
            throw HTTPTransportError(code: .encodingFailed, message: "The HTTP archive could not be encoded: \(error)",
                                     underlyingError: error)
        }
    }

    /// Writes the archive to `file` atomically (a new file, mode 0600, renamed over `file`), so
    /// a reader never sees half an archive and no other user can read its bodies.
    public func write(to file: URL) throws {
        let data = try archiveData()
        do {
            try AtomicFile.write(data, to: file)
        } catch {
            throw HTTPTransportError(code: .fileIO, message: "The HTTP archive could not be written to \(file.path): \(error)",
                                     underlyingError: error)
        }
    }

    /// Forgets every exchange recorded so far.
    public func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
