import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Files a request body is read from: one rule for whether they can be read, used when a
/// request is resolved (to fail before anything is sent) and when the engine opens them.
enum UploadFile {
    /// Why `file` cannot be read as a body, or `nil` when it can.
    static func problem(with file: URL) -> String? {
        // Non-blocking: opening a FIFO for reading would otherwise wait for a writer.
        let descriptor = Glibc.open(file.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        var info = stat()
        if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return "it is a directory" }
        return nil
    }

    /// A descriptor to read the body from.
    static func open(_ file: URL, url: String) throws(HTTPTransportError) -> Int32 {
        let descriptor = Glibc.open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw HTTPTransportError(code: .fileIO, message: "Cannot open the file to upload (\(String(cString: strerror(errno)))): \(file.path)",
                                     url: url)
        }
        return descriptor
    }
}
