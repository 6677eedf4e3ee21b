import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An open file that only this download writes: created exclusively, or an existing one checked
/// to be a regular file of this user with a single name. It is never reached through a symbolic
/// link, so a link planted at its path cannot turn a write into a write to some other file, and
/// a hard link cannot either (one name only).
///
/// The descriptor is closed by `close()` or when the value goes away, whichever comes first.
final class PrivateFile {
    /// The open descriptor; -1 once closed.
    private(set) var descriptor: Int32
    /// The file's size when it was opened.
    let size: Int64
    private let device: UInt64
    private let inode: UInt64

    /// Why a path cannot be used, in words for an error message.
    struct Refusal: Error {
        let reason: String
    }

    private init(descriptor: Int32, info: stat) {
        self.descriptor = descriptor
        size = Int64(info.st_size)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    deinit { close() }

    func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Whether `path` still names this file (and not something put there since).
    func isNamed(by path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// Creates a new file at `path` that only this user can read and write; fails when anything
    /// at all is there already, a symbolic link included (which is not followed).
    static func create(at path: String) -> Result<PrivateFile, Refusal> {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST
                ? "something was created there while the download started (another download to the same destination?)"
                : String(cString: strerror(errno))
            return .failure(Refusal(reason: reason))
        }
        return adopt(descriptor, unless: { _ in nil })
    }

    /// Removes whatever is at `path` (a link itself, never what it points to), then creates a new
    /// file there as `create(at:)` does.
    static func replace(at path: String) -> Result<PrivateFile, Refusal> {
        if let refusal = remove(at: path) { return .failure(refusal) }
        return create(at: path)
    }

    /// Opens the existing file at `path` for `access` (`O_RDONLY` or `O_WRONLY`) when it is a
    /// regular file owned by this process's user with one link; anything else is refused.
    static func openExisting(at path: String, access: Int32) -> Result<PrivateFile, Refusal> {
        // O_NONBLOCK: opening a FIFO must not wait for a peer (it has no effect on regular files).
        // O_NOCTTY: a terminal device planted there must not become the controlling terminal.
        let descriptor = open(path, access | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            return .failure(Refusal(reason: reason))
        }
        return adopt(descriptor, unless: problem(with:))
    }

    /// The file behind a just-opened descriptor, unless `problem` finds something wrong with it
    /// (the descriptor is then closed).
    private static func adopt(_ descriptor: Int32, unless problem: (stat) -> String?) -> Result<PrivateFile, Refusal> {
        var info = stat()
        let failure = fstat(descriptor, &info) == 0 ? problem(info) : String(cString: strerror(errno))
        if let failure {
            _ = Glibc.close(descriptor)
            return .failure(Refusal(reason: failure))
        }
        return .success(PrivateFile(descriptor: descriptor, info: info))
    }

    /// What makes an existing file unfit to be written as ours, if anything.
    private static func problem(with info: stat) -> String? {
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return "it is a directory"
        case S_IFIFO: return "it is a FIFO"
        case S_IFSOCK: return "it is a socket"
        case S_IFCHR, S_IFBLK: return "it is a device"
        default: return "it is not a regular file"
        }
        if info.st_uid != geteuid() {
            return "it belongs to user \(info.st_uid), not to this process's user \(geteuid())"
        }
        if info.st_nlink != 1 {
            return "it has \(info.st_nlink) hard links (another name may be a file it must not change)"
        }
        return nil
    }

    /// Removes the directory entry at `path`; `nil` when nothing is left there.
    static func remove(at path: String) -> Refusal? {
        if unlink(path) == 0 || errno == ENOENT { return nil }
        switch errno {
        case EISDIR: return Refusal(reason: "it is a directory")
        case EPERM, EACCES:
            return Refusal(reason: "\(String(cString: strerror(errno))) (in a directory such as /tmp, only its owner may remove it)")
        default: return Refusal(reason: String(cString: strerror(errno)))
        }
    }

    /// Reads the whole file, at most `limit` bytes; `nil` when it is larger or unreadable.
    func readAll(limit: Int) -> [UInt8]? {
        guard size <= Int64(limit) else { return nil }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count <= limit {
            let read = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress.map { $0 + count }, limit + 1 - count)
            }
            if read < 0, errno == EINTR { continue }
            guard read >= 0 else { return nil }
            if read == 0 { break }
            count += read
        }
        return count <= limit ? Array(bytes[0..<count]) : nil
    }

    /// Writes all of `bytes`; a description of the failure otherwise.
    func writeAll(_ bytes: UnsafeRawBufferPointer) -> String? {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            offset += written
        }
        return nil
    }

    /// The permissions a newly made file gets from the process's umask, as `open` would give a
    /// file created with mode 0644; 0600 when the umask cannot be read (Linux before 4.7).
    static var usualMode: mode_t {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
              let mask = mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        else { return 0o600 }
        return 0o644 & ~mask
    }
}
