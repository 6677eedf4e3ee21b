import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A download to a file: the body goes into `<destination>.part` beside the destination, which
/// is renamed over the destination only when the exchange succeeds, so the destination is never
/// half-written. With `resume`, a `.part` left by an earlier attempt is continued with `Range` +
/// `If-Range` (its validator is kept in `<destination>.part.validator`); a server that answers
/// 200 instead of 206 gets a fresh start.
final class DownloadFile {
    let destination: URL
    let partPath: String
    let validatorPath: String
    let resume: Bool
    private(set) var descriptor: Int32 = -1
    private(set) var resumeOffset: Int64 = 0
    /// `true` once the response is known to be the body to save (2xx).
    private(set) var isWritingBody = false

    init(_ download: Download) {
        destination = download.destination
        partPath = download.destination.path + ".part"
        validatorPath = partPath + ".validator"
        resume = download.resume
    }

    deinit { closeFile() }

    /// Opens the part file and, when resuming, adds the range headers.
    func prepare(headers: inout HTTPHeaders, url: String) throws(HTTPTransportError) {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC
        descriptor = open(partPath, flags, 0o644)
        guard descriptor >= 0 else {
            throw HTTPTransportError(code: .fileIO,
                                     message: "Cannot create the download file \(partPath): \(String(cString: strerror(errno)))",
                                     url: url)
        }
        var info = stat()
        let existing: Int64 = fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
        if resume, existing > 0,
           let validator = try? String(contentsOfFile: validatorPath, encoding: .utf8), !validator.isEmpty {
            resumeOffset = existing
            headers.replace("Range", with: "bytes=\(existing)-")
            headers.replace("If-Range", with: validator)
        } else {
            resumeOffset = 0
        }
    }

    /// Called when the final response's headers are complete: decides where the body goes.
    /// Returns an error when a partial answer does not continue the part file.
    func beginBody(status: Int, headers: HTTPHeaders) -> String? {
        guard (200...299).contains(status) else {
            isWritingBody = false
            if status == 416 { discardPart() }
            return nil
        }
        isWritingBody = true
        if status == 206, resumeOffset > 0 {
            let range = headers.first("Content-Range") ?? ""
            guard range.lowercased().hasPrefix("bytes \(resumeOffset)-") else {
                discardPart()
                return "The server resumed at the wrong offset (Content-Range: \(range)); the partial file was discarded."
            }
            _ = lseek(descriptor, off_t(resumeOffset), SEEK_SET)
        } else {
            // A full body: start over.
            resumeOffset = 0
            _ = ftruncate(descriptor, 0)
            _ = lseek(descriptor, 0, SEEK_SET)
        }
        flushedUpTo = resumeOffset
        unflushed = 0
        // Remember how to resume this body, should the transfer be cut.
        if resume, let validator = headers.first("ETag") ?? headers.first("Last-Modified"),
           !validator.hasPrefix("W/") {
            try? validator.write(toFile: validatorPath, atomically: true, encoding: .utf8)
        } else {
            unlink(validatorPath)
        }
        return nil
    }

    /// Writes body bytes; returns an error message on failure (e.g. a full disk).
    func write(_ bytes: UnsafeRawBufferPointer) -> String? {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return "Writing the download to \(partPath) failed: \(String(cString: strerror(errno)))"
            }
            offset += written
        }
        // Start writing back every few MiB while the body streams in, so the fsync in `commit()`
        // waits for the last few MiB only, not for the whole file.
        unflushed += Int64(bytes.count)
        if unflushed >= Self.writebackChunk {
            _ = ccurl_start_writeback(descriptor, flushedUpTo, unflushed)
            flushedUpTo += unflushed
            unflushed = 0
        }
        return nil
    }

    /// Bytes after which written data is handed to the kernel's write-back.
    static let writebackChunk: Int64 = 8 * 1024 * 1024
    private var flushedUpTo: Int64 = 0
    private var unflushed: Int64 = 0

    /// Moves the finished part file over the destination. Returns an error message on failure.
    func commit() -> String? {
        if fsync(descriptor) != 0 {
            let reason = String(cString: strerror(errno))
            closeFile()
            return "Flushing the download failed: \(reason)"
        }
        closeFile()
        guard rename(partPath, destination.path) == 0 else {
            return "Moving the download to \(destination.path) failed: \(String(cString: strerror(errno)))"
        }
        unlink(validatorPath)
        return nil
    }

    /// After a failure: keep a resumable part file, otherwise remove it.
    func abandon() {
        closeFile()
        if !resume || !FileManager.default.fileExists(atPath: validatorPath) { discardPart() }
    }

    private func discardPart() {
        closeFile()
        unlink(partPath)
        unlink(validatorPath)
        resumeOffset = 0
    }

    private func closeFile() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }
}
