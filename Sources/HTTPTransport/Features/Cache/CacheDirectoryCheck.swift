import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether a cache directory is this user's alone. Another local user who can write to it (or
/// who owns it, or its salt) could plant responses that sends would then be served, or choose
/// the salt of the digests; such a directory is refused with the reason, saying how to fix it.
enum CacheDirectoryCheck {
    /// Why the directory cannot be used.
    struct Refusal: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    /// Creates `path` when missing (mode 0700; missing parents as the umask gives), then
    /// checks it: a directory owned by this user and writable by no one else. When `path`
    /// itself is a symbolic link, the link must be this user's or root's too (someone else's
    /// link could be pointed elsewhere later).
    static func prepare(_ path: String) throws(Refusal) {
        var status = stat()
        if lstat(path, &status) != 0, errno == ENOENT {
            let parent = (path as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            if mkdir(path, 0o700) != 0, errno != EEXIST {
                throw Refusal(description: "cannot create it (\(String(cString: strerror(errno))))")
            }
        }
        guard lstat(path, &status) == 0 else {
            throw Refusal(description: "cannot read its status (\(String(cString: strerror(errno))))")
        }
        if (status.st_mode & S_IFMT) == S_IFLNK {
            guard status.st_uid == geteuid() || status.st_uid == 0 else {
                throw Refusal(description: "it is a symbolic link owned by another user (uid \(status.st_uid))")
            }
            guard stat(path, &status) == 0 else { throw Refusal(description: "it is a dangling symbolic link") }
        }
        guard (status.st_mode & S_IFMT) == S_IFDIR else { throw Refusal(description: "it is not a directory") }
        try checkOwnedAndPrivate(status, what: "the directory", allowedBits: 0o755)
    }

    /// Checks the salt file at `path` when there is one: a regular file (not a link) of this
    /// user that no one else may read or write (mode 0600). A missing one is made by the cache.
    static func checkSalt(_ path: String) throws(Refusal) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return }
            throw Refusal(description: "cannot read the status of its salt file (\(String(cString: strerror(errno))))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw Refusal(description: "its salt file \(path) is not a regular file")
        }
        try checkOwnedAndPrivate(status, what: "its salt file \(path)", allowedBits: 0o700)
    }

    /// Owned by this user, and no permission bits beyond `allowedBits`.
    private static func checkOwnedAndPrivate(_ status: stat, what: String, allowedBits: mode_t) throws(Refusal) {
        guard status.st_uid == geteuid() else {
            throw Refusal(description: "\(what) is owned by another user (uid \(status.st_uid), this process runs as uid \(geteuid()))")
        }
        let mode = status.st_mode & 0o7777
        guard mode & ~allowedBits & 0o777 == 0 else {
            throw Refusal(description: "\(what) has mode \(String(mode, radix: 8)), which lets other users "
                + (allowedBits == 0o755 ? "write to it (chmod 700 it)" : "read or write it (chmod 600 it)"))
        }
    }
}
