import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The file operations of a cache directory, as plain system calls: what a reader, a writer and
/// the evictor need, each failure reported as a value (a file may vanish at any moment when
/// several processes share the directory).
enum EntryFile {
    /// Which file, in which state: entries are only ever replaced by renaming a new file over
    /// them, so an unchanged identity means unchanged contents.
    struct Identity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int

        /// The modification time, seconds since 1970.
        var modified: Double { Double(modifiedSeconds) + Double(modifiedNanoseconds) / 1e9 }

        init?(_ status: stat) {
            guard (status.st_mode & S_IFMT) == S_IFREG else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modifiedSeconds = status.st_mtim.tv_sec
            modifiedNanoseconds = status.st_mtim.tv_nsec
        }
    }

    enum ReadResult {
        /// No such file (any more).
        case missing
        /// Larger than an entry may be, or unreadable midway.
        case corrupt
        /// The bytes, and the identity of the file they were read from.
        case contents(Data, Identity)
    }

    /// The whole file at `path`, unless it is larger than `limit` bytes or not this user's.
    static func read(_ path: String, limit: Int64) -> ReadResult {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .missing }
        defer { close(descriptor) }
        var status = stat()
        // A file of another user's cannot be ours, whatever its contents say.
        guard fstat(descriptor, &status) == 0, status.st_uid == geteuid(), let identity = Identity(status),
              identity.size <= limit
        else {
            return .corrupt
        }
        var data = Data(count: Int(identity.size))
        let complete = data.withUnsafeMutableBytes { buffer in
            repeatUntilDone(buffer.count) { done in
                Glibc.read(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done)
            }
        }
        return complete ? .contents(data, identity) : .corrupt
    }

    /// Creates `path` (it must not exist) with `data`, readable by the owner only, and stamps it
    /// with the current time. The file's identity (which a rename keeps), or nil when any step
    /// fails (the partial file is removed).
    static func write(_ data: Data, to path: String) -> Identity? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        let written = data.withUnsafeBytes { buffer in
            repeatUntilDone(buffer.count) { done in
                Glibc.write(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done)
            }
        }
        var times = [timespec](repeating: now(), count: 2)
        var status = stat()
        let stamped = futimens(descriptor, &times) == 0 && fstat(descriptor, &status) == 0
        let closed = close(descriptor) == 0
        guard written, stamped, closed, let identity = Identity(status) else {
            unlink(path)
            return nil
        }
        return identity
    }

    /// Sets the file's access and modification times to now (its last use, for eviction);
    /// the time set, or nil when the file is gone.
    static func touch(_ path: String) -> timespec? {
        var times = [timespec](repeating: now(), count: 2)
        return utimensat(AT_FDCWD, path, &times, 0) == 0 ? times[1] : nil
    }

    /// The identity of a regular file, or nil.
    static func identity(_ path: String) -> Identity? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return Identity(status)
    }

    /// The names in a folder (none when it cannot be read), without `.` and `..`.
    static func names(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
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
