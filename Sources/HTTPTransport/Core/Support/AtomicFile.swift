import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Files that must never be seen half written or by another user (the cookie file, HTTP
/// archives): written into a new temporary file in the same directory, created with mode 0600
/// from the start (never readable by others, not even empty for an instant), flushed to disk,
/// then renamed over the destination.
enum AtomicFile {
    /// Writes `data` to `url` atomically. On failure the temporary file is removed and `url` is
    /// left as it was.
    static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw posixError(temporary) }
        do {
            try writeAll(data, to: descriptor, path: temporary)
            guard fsync(descriptor) == 0 else { throw posixError(temporary) }
        } catch {
            close(descriptor)
            _ = unlink(temporary.path)
            throw error
        }
        guard close(descriptor) == 0 else {
            let error = posixError(temporary)
            _ = unlink(temporary.path)
            throw error
        }
        guard rename(temporary.path, url.path) == 0 else {
            let error = posixError(url)
            _ = unlink(temporary.path)
            throw error
        }
    }

    private static func writeAll(_ data: Data, to descriptor: Int32, path: URL) throws {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw posixError(path)
                }
                offset += written
            }
        }
    }

    private static func posixError(_ url: URL) -> Error {
        CocoaError(.fileWriteUnknown, userInfo: [
            NSFilePathErrorKey: url.path,
            NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO),
        ])
    }
}
