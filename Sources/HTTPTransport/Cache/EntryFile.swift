import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The file operations of a cache directory, as plain system calls: what a reader, a writer and
/// the evictor need, each failure reported as a value (a file may vanish at any moment when
/// several processes share the directory).
enum EntryFile {
    enum ReadResult {
        /// No such file (any more).
        case missing
        /// Larger than an entry may be, or unreadable midway.
        case corrupt
        case contents(Data)
    }

    /// The whole file at `path`, unless it is larger than `limit` bytes.
    static func read(_ path: String, limit: Int64) -> ReadResult {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .missing }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return .corrupt }
        let size = Int64(status.st_size)
        guard size <= limit else { return .corrupt }
        var data = Data(count: Int(size))
        let complete = data.withUnsafeMutableBytes { buffer in
            repeatUntilDone(buffer.count) { done in
                Glibc.read(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done)
            }
        }
        return complete ? .contents(data) : .corrupt
    }

    /// Creates `path` (it must not exist) with `data`, readable by the owner only, and stamps it
    /// with the current time. `false` when any step fails (the partial file is removed).
    static func write(_ data: Data, to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        let written = data.withUnsafeBytes { buffer in
            repeatUntilDone(buffer.count) { done in
                Glibc.write(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done)
            }
        }
        var times = [timespec](repeating: now(), count: 2)
        let stamped = futimens(descriptor, &times) == 0
        let closed = close(descriptor) == 0
        guard written, stamped, closed else {
            unlink(path)
            return false
        }
        return true
    }

    /// Sets the file's access and modification times to now (its last use, for eviction).
    static func touch(_ path: String) {
        var times = [timespec](repeating: now(), count: 2)
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    /// The size of a regular file, or nil.
    static func size(_ path: String) -> Int64? { status(path)?.size }

    /// Size and modification time (seconds since 1970) of a regular file, or nil.
    static func status(_ path: String) -> (size: Int64, modified: Double)? {
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modified = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
        return (Int64(status.st_size), modified)
    }

    /// Runs `step` (a `read` or `write` of the rest, given the bytes done so far) until `count`
    /// bytes are done; `false` when a step fails or moves nothing (end of file, full disk).
    private static func repeatUntilDone(_ count: Int, _ step: (Int) -> Int) -> Bool {
        var done = 0
        while done < count {
            let moved = step(done)
            if moved < 0, errno == EINTR { continue }
            guard moved > 0 else { return false }
            done += moved
        }
        return true
    }

    /// The wall-clock time to the nanosecond: file systems keep it whole, while the kernel's own
    /// stamp advances only once per clock tick (several writes in a row would share one).
    private static func now() -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return time
    }
}
