import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A download to a file: the body goes into `<destination>.part` beside the destination, which
/// is renamed over the destination only when the exchange succeeds, so the destination is never
/// half-written. With `resume`, a `.part` left by an earlier attempt at the same URL is continued
/// with `Range` + `If-Range` (see `ResumeRecord`); a server that answers 200 instead of 206 gets a
/// fresh start.
///
/// Files beside the destination may have been planted by someone else (a shared directory such
/// as /tmp): the part file is created exclusively, never through a link (`PrivateFile`); a part
/// continued must be a regular file of this user with one name, else it starts over. Nothing is
/// created before the response's body is known to be the one to save, and nothing this download
/// did not create or check is removed.
final class DownloadFile {
    let destination: URL
    let partPath: String
    let recordPath: String
    /// The most bytes the finished file may hold (`Download.maxSize`, else the session's cap).
    let maxSize: Int64
    /// Whether the part may be continued later: `Download.resume`, unless the request asks for a
    /// range of its own (whose answer is a slice, not a prefix of the file).
    private var resumes: Bool
    private var requestURL = ""
    /// The part file, while this download holds it open.
    private var part: PrivateFile?
    /// The record vouching for the part's bytes (`nil`: the part cannot be continued).
    private var record: ResumeRecord?
    /// Bytes already in the part when this body started.
    private var resumeOffset: Int64 = 0
    private var written: Int64 = 0
    /// Whether the request carries a `Range` header (ours or its own): only then is 206 an answer.
    private var asksForRange = false
    /// `true` once the response is known to be the body to save (2xx).
    private(set) var isWritingBody = false

    init(_ download: Download, sessionMaxSize: Int64) {
        destination = download.destination
        partPath = download.destination.path + ".part"
        recordPath = partPath + ".validator"
        maxSize = max(0, download.maxSize ?? sessionMaxSize)
        resumes = download.resume
    }

    /// A download that ends without `commit()` cleans up as `abandon()` does.
    deinit { abandon() }

    /// Checks that the destination can be written and, when a part of this URL can be continued,
    /// opens it and adds the range headers.
    func prepare(headers: inout HTTPHeaders, url: String) throws(HTTPTransportError) {
        requestURL = url
        try checkDestination()
        if headers.contains("Range") {
            asksForRange = true
            resumes = false
            return
        }
        guard resumes, let saved = ResumeRecord.read(at: recordPath), saved.matches(url: url),
              case .success(let file) = PrivateFile.openExisting(at: partPath, access: O_WRONLY), file.size > 0
        else { return }
        part = file
        record = saved
        resumeOffset = file.size
        asksForRange = true
        headers.replace("Range", with: "bytes=\(file.size)-")
        headers.replace("If-Range", with: saved.validator)
    }

    /// Fails before anything is sent when the body could not be saved anyway.
    private func checkDestination() throws(HTTPTransportError) {
        let directory = destination.deletingLastPathComponent().path
        if faccessat(AT_FDCWD, directory, W_OK | X_OK, AT_EACCESS) != 0 {
            throw failure(.fileIO, "Cannot write the download into \(directory): \(String(cString: strerror(errno))). "
                + "Choose a destination in an existing directory this process may write.")
        }
        var info = stat()
        if lstat(destination.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw failure(.fileIO, "The download destination \(destination.path) is a directory: give the path of a file.")
        }
    }

    /// Called when the final response's headers are complete: decides where the body goes.
    /// Returns the error that ends the transfer when the body must not be saved.
    func beginBody(status: Int, headers: HTTPHeaders) -> HTTPTransportError? {
        guard (200...299).contains(status) else {
            // 416 to our range: the part is not a prefix of what the server has now.
            if status == 416, record != nil, part != nil { discard() }
            return nil
        }
        if status == 206 {
            guard asksForRange else {
                return failure(.badResponse, "The server answered 206 Partial Content to a request for the whole file: "
                    + "the body is only a piece of it (Content-Range: \(headers.first("Content-Range") ?? "none")), "
                    + "so nothing was saved.")
            }
            if record != nil, part != nil { return continuePart(headers) }
        }
        return startOver(headers)
    }

    /// A 206 to our `Range`: the body continues the part file.
    private func continuePart(_ headers: HTTPHeaders) -> HTTPTransportError? {
        let rangeHeader = headers.first("Content-Range") ?? "none"
        guard let range = ContentRange(rangeHeader), range.first == resumeOffset, range.reachesEnd else {
            discard()
            return failure(.badResponse, "The server resumed at the wrong place (Content-Range: \(rangeHeader), "
                + "the partial file has \(resumeOffset) bytes); the partial file was discarded, the next attempt starts over.")
        }
        if let record, record.isEntityTag, let tag = headers.first("ETag"), tag != record.validator {
            discard()
            return failure(.badResponse, "The server resumed another version of the file (ETag \(tag), the partial "
                + "file has \(record.validator)); the partial file was discarded, the next attempt starts over.")
        }
        let total = range.completeLength ?? declaredLength(headers).map { resumeOffset + $0 }
        if let total, total > maxSize {
            discard()
            return tooLarge()
        }
        guard let part, ftruncate(part.descriptor, off_t(resumeOffset)) == 0,
              lseek(part.descriptor, off_t(resumeOffset), SEEK_SET) == off_t(resumeOffset) else {
            let reason = String(cString: strerror(errno))
            discard()
            return failure(.fileIO, "Cannot continue the partial download \(partPath): \(reason).")
        }
        startWriting()
        return nil
    }

    /// A whole body: the part file starts empty (ours truncated, anything else there replaced).
    private func startOver(_ headers: HTTPHeaders) -> HTTPTransportError? {
        if let length = declaredLength(headers), length > maxSize {
            if part != nil { discard() }
            return tooLarge()
        }
        // The old record goes first: a part that no record describes is never continued.
        record = nil
        let recordRemoved = PrivateFile.remove(at: recordPath) == nil
        resumeOffset = 0
        if let part {
            guard ftruncate(part.descriptor, 0) == 0, lseek(part.descriptor, 0, SEEK_SET) == 0 else {
                let reason = String(cString: strerror(errno))
                discard()
                return failure(.fileIO, "Cannot restart the partial download \(partPath): \(reason).")
            }
        } else {
            switch PrivateFile.replace(at: partPath) {
            case .success(let file): part = file
            case .failure(let refusal):
                return failure(.fileIO, "Cannot create the download file \(partPath): \(refusal.reason). "
                    + "Remove it, or choose another destination.")
            }
        }
        // Remember how to resume this body, should the transfer be cut.
        if resumes, recordRemoved,
           let new = ["ETag", "Last-Modified"].lazy.compactMap({ headers.first($0) })
               .compactMap({ ResumeRecord(url: self.requestURL, validator: $0) }).first,
           new.write(to: recordPath) {
            record = new
        }
        startWriting()
        return nil
    }

    private func startWriting() {
        isWritingBody = true
        written = 0
        flushedUpTo = resumeOffset
        unflushed = 0
    }

    /// The body length the headers announce, when it is the length of the bytes to be written
    /// (no content coding, which libcurl decodes into more bytes). Downloads do without
    /// libcurl's `CURLOPT_MAXFILESIZE_LARGE`: it compares the declared length alone, which is the
    /// compressed size under a content coding and only the rest of the file on a resume, while
    /// the cap is on the file; this check (plus the count in `write`) is on the file's bytes.
    private func declaredLength(_ headers: HTTPHeaders) -> Int64? {
        if let coding = headers.first("Content-Encoding"), !coding.caseInsensitiveEquals("identity") { return nil }
        return headers.first("Content-Length").flatMap { Int64($0) }
    }

    /// Writes (decoded) body bytes; returns the error that ends the transfer on failure (a full
    /// disk, or more bytes than `maxSize`).
    func write(_ bytes: UnsafeRawBufferPointer) -> HTTPTransportError? {
        guard let part else { return failure(.fileIO, "The download file \(partPath) is not open.") }
        if resumeOffset + written + Int64(bytes.count) > maxSize {
            discard()
            return tooLarge()
        }
        if let reason = part.writeAll(bytes) {
            return failure(.fileIO, "Writing the download to \(partPath) failed: \(reason)")
        }
        written += Int64(bytes.count)
        // Start writing back every few MiB while the body streams in, so the fsync in `commit()`
        // waits for the last few MiB only, not for the whole file.
        unflushed += Int64(bytes.count)
        if unflushed >= Self.writebackChunk {
            _ = ccurl_start_writeback(part.descriptor, flushedUpTo, unflushed)
            flushedUpTo += unflushed
            unflushed = 0
        }
        return nil
    }

    /// Bytes after which written data is handed to the kernel's write-back.
    static let writebackChunk: Int64 = 8 * 1024 * 1024
    private var flushedUpTo: Int64 = 0
    private var unflushed: Int64 = 0

    /// Moves the finished part file over the destination (a link at the destination is replaced,
    /// not followed). Returns the error on failure, after which the part file is gone.
    func commit() -> HTTPTransportError? {
        guard let part else { return failure(.fileIO, "The download file \(partPath) is not open.") }
        guard fsync(part.descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            return failure(.fileIO, "Flushing the download to \(partPath) failed: \(reason)")
        }
        _ = fchmod(part.descriptor, PrivateFile.usualMode)
        guard part.isNamed(by: partPath) else {
            // Not ours to move, nor to remove.
            forget()
            return failure(.fileIO, "The download file \(partPath) was replaced while the body was written "
                + "(another download to the same destination?); the destination was left as it was.")
        }
        guard rename(partPath, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            return failure(.fileIO, "Moving the download to \(destination.path) failed: \(reason)")
        }
        forget()
        _ = PrivateFile.remove(at: recordPath)
        return nil
    }

    /// After a failure: keep a part file that can be continued, otherwise remove it. Files this
    /// download never opened are left as they are.
    func abandon() {
        guard part != nil else { return }
        if resumes, record != nil {
            forget()
        } else {
            discard()
        }
    }

    /// Removes the part file (if the path still names it) and its record.
    private func discard() {
        if let part, part.isNamed(by: partPath) { _ = PrivateFile.remove(at: partPath) }
        if record != nil { _ = PrivateFile.remove(at: recordPath) }
        record = nil
        forget()
    }

    /// Closes the part file, leaving it on disk.
    private func forget() {
        part?.close()
        part = nil
        isWritingBody = false
    }

    private func tooLarge() -> HTTPTransportError {
        failure(.responseTooLarge, "The download passed its limit of \(maxSize) bytes and was removed. Raise the limit "
            + "for this request with `downloading(to:resume:maxSize:)`, or for the session with "
            + "`Session.Configuration.maxResponseSize`.")
    }

    private func failure(_ code: HTTPTransportError.Code, _ message: String) -> HTTPTransportError {
        HTTPTransportError(code: code, message: message, url: requestURL)
    }
}

/// A `Content-Range: bytes first-last/complete` header (`complete` may be `*`).
struct ContentRange: Equatable {
    let first: Int64
    let last: Int64
    let completeLength: Int64?

    init?(_ value: String) {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last
        else { return nil }
        if halves[1] == "*" {
            completeLength = nil
        } else {
            guard let complete = Self.number(halves[1]), last < complete else { return nil }
            completeLength = complete
        }
        self.first = first
        self.last = last
    }

    /// Whether the range runs to the end of the entity (unknowable when the length is `*`).
    var reachesEnd: Bool { completeLength.map { last == $0 - 1 } ?? true }

    private static func number(_ digits: Substring) -> Int64? {
        guard !digits.isEmpty, digits.count <= 18, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(digits)
    }
}

/// A download's body goes to its file once `beginBody` accepted the response; a body it does
/// not write (a failed status's) is kept in memory, within the session's limit.
extension DownloadFile: BodySink {
    func begin(status: Int, state: TransferState) -> HTTPTransportError? {
        beginBody(status: status, headers: state.headers)
    }

    /// The file takes the body's place in the response once it is in place; a body it did not
    /// write stays in memory (and the part file goes).
    func complete(state: TransferState) -> BodyOutcome {
        guard isWritingBody else {
            abandon()
            return .inMemory
        }
        if let error = commit() { return .failed(error) }
        return .file(destination)
    }

    func receive(_ bytes: UnsafeRawBufferPointer, state: TransferState) -> BodyAnswer {
        guard isWritingBody else { return state.memory.receive(bytes, state: state) }
        if let error = write(bytes) {
            state.storedError = error
            return .abort
        }
        return .proceed
    }
}
