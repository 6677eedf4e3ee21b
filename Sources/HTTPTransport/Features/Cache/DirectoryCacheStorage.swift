import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Responses in a directory, so they survive restarts and can be shared by several processes.
///
/// Layout: `<directory>/<salted SHA-256 of the URL>/<variant name>`, one file per stored response
/// (`StoredResponseCoding`; it names the URL by the folder's digest, so no file holds a URL),
/// temporary files in `<directory>/.tmp/`, and the salt of the field
/// digests in `<directory>/.salt`. The design needs no lock
/// file, because every change is a single atomic file-system operation:
/// - a write goes to a new temporary file, then `rename(2)` puts it in place: a reader opens
///   either the old file or the new one, never half of one;
/// - readers tolerate files that vanish between listing and opening (a miss), and a file that
///   fails its length or checksum check is removed and read as a miss;
/// - use is recorded in the file's modification time (set from a fine clock), so the
///   least-recently-used order is shared by every process; eviction lists the files, sorts them
///   by that time and removes the oldest until the total is within `maxBytes`. Two processes
///   evicting at once remove a few files too many at worst.
/// Each process counts what it writes and rescans when its count passes the limit or a quarter
/// of the limit has been written since its last scan, so other processes' writes are seen too.
/// Entries already read stay decoded in memory while their file is unchanged (`DecodedEntries`),
/// so a hit costs a directory listing and a `stat`, not a read and a checksum.
/// Files are created `0600` and folders `0700`: cached bodies are the user's data. A directory
/// that another user owns or may write to is refused (`CacheDirectoryCheck`). Nothing is
/// ever removed that does not have the name of an entry, so pointing the cache at a folder that
/// holds other files does not lose them.
final class DirectoryCacheStorage: CacheStorage {
    private struct Accounting: Sendable {
        /// Bytes in the directory as last scanned plus what this process wrote since (nil: never scanned).
        var estimate: Int64?
        var writtenSinceScan: Int64 = 0
        var isScanning = false
    }

    private let root: String
    private let temporaryFolder: String
    private let maxBytes: Int64
    private let accounting = Locked(Accounting())
    private let decoded: DecodedEntries
    let salt: [UInt8]

    /// Temporary files older than this are left over from a crashed writer.
    static let abandonedTemporaryAge: Double = 600

    /// The storage in `directory` (created 0700 when missing); refused when the directory or its
    /// salt could have been written by another user (`CacheDirectoryCheck`).
    init(directory: URL, maxBytes: Int64) throws(CacheDirectoryCheck.Refusal) {
        root = directory.standardizedFileURL.path
        temporaryFolder = root + "/.tmp"
        self.maxBytes = max(0, maxBytes)
        decoded = DecodedEntries(maxBytes: maxBytes)
        try CacheDirectoryCheck.prepare(root)
        try CacheDirectoryCheck.checkSalt(root + "/.salt")
        mkdir(temporaryFolder, 0o700)
        salt = Self.salt(at: root + "/.salt", temporaryFolder: temporaryFolder)
    }

    /// The directory's salt: read from `path`, or made and put there when it has none. Creating
    /// it with `link(2)` lets the first process win a race and the others read its salt; a
    /// damaged salt file is replaced (entries made with the old salt become misses and are
    /// evicted in time). Without a usable directory, a salt of this instance's own.
    private static func salt(at path: String, temporaryFolder: String) -> [UInt8] {
        func stored() -> [UInt8]? {
            guard case .contents(let data, _) = EntryFile.read(path, limit: 32), data.count == 32 else { return nil }
            return Array(data)
        }
        if let existing = stored() { return existing }
        let fresh = FieldDigester.randomSalt()
        let temporary = temporaryFolder + "/\(getpid())-\(UInt64.random(in: 0...UInt64.max)).tmp"
        guard EntryFile.write(Data(fresh), to: temporary) != nil else { return fresh }
        defer { unlink(temporary) }
        if link(temporary, path) == 0 { return fresh }
        if let existing = stored() { return existing }
        return rename(temporary, path) == 0 ? fresh : (stored() ?? fresh)
    }

    func responses(for key: CacheKey) -> [StoredResponse] {
        let folder = folder(for: key.url)
        let prefix = String(key.credentialDigest.prefix(32)) + "-"
        var result: [StoredResponse] = []
        for name in EntryFile.names(in: folder) where name.hasPrefix(prefix) && Self.isVariantName(name) {
            let path = folder + "/" + name
            guard let response = read(path, url: key.url), response.url == key.url,
                  response.credentialDigest == key.credentialDigest, response.variantName == name
            else { continue }
            result.append(response)
        }
        return result
    }

    /// The entry of `url` at `path`: decoded already while the file is unchanged, else read and
    /// checked. A damaged file, or one of another URL, is removed; a vanished one is nothing.
    private func read(_ path: String, url: String) -> StoredResponse? {
        guard let identity = EntryFile.identity(path) else {
            decoded.forget(path)
            return nil
        }
        if let known = decoded.response(at: path, identity: identity) { return known }
        switch EntryFile.read(path, limit: maxBytes) {
        case .missing:
            return nil
        case .corrupt:
            unlink(path)
            return nil
        case .contents(let data, let identity):
            guard let response = StoredResponseCoding.decode(data, url: url, urlName: urlName(url)) else {
                unlink(path)
                return nil
            }
            decoded.remember(response, at: path, identity: identity)
            return response
        }
    }

    func store(_ response: StoredResponse) {
        let data = StoredResponseCoding.encode(response, urlName: urlName(response.url))
        guard Int64(data.count) <= maxBytes else { return }
        let folder = folder(for: response.url)
        let path = folder + "/" + response.variantName
        guard let (temporary, identity) = writeTemporary(data) else { return }
        let replaced = EntryFile.identity(path)?.size ?? 0
        var moved = rename(temporary, path) == 0
        if !moved, errno == ENOENT {
            // The URL's folder is new, or another process removed it a moment ago.
            mkdir(folder, 0o700)
            moved = rename(temporary, path) == 0
        }
        guard moved else {
            unlink(temporary)
            return
        }
        decoded.remember(response, at: path, identity: identity)
        let needsScan = accounting.withLock { accounting -> Bool in
            accounting.writtenSinceScan += Int64(data.count)
            accounting.estimate = accounting.estimate.map { $0 + Int64(data.count) - replaced }
            guard !accounting.isScanning else { return false }
            let due = (accounting.estimate ?? .max) > maxBytes || accounting.writtenSinceScan > maxBytes / 4
            if due { accounting.isScanning = true }
            return due
        }
        if needsScan { scanAndEvict() }
    }

    func recordUse(of response: StoredResponse) {
        let path = folder(for: response.url) + "/" + response.variantName
        if let time = EntryFile.touch(path) { decoded.restamp(path, modified: time) }
    }

    func remove(_ response: StoredResponse) {
        let path = folder(for: response.url) + "/" + response.variantName
        unlink(path)
        decoded.forget(path)
    }

    func removeAll(url: String) {
        removeFolder(folder(for: url))
    }

    func removeAll() {
        for name in EntryFile.names(in: root) where Self.isDigestName(name) {
            removeFolder(root + "/" + name)
        }
        decoded.forgetAll()
        removeAbandonedTemporaries()
        accounting.withLock { accounting in
            accounting.estimate = nil
            accounting.writtenSinceScan = 0
        }
    }

    // MARK: Writing

    /// Writes `data` to a new temporary file stamped with the current time; its path and
    /// identity, or nil.
    private func writeTemporary(_ data: Data) -> (path: String, identity: EntryFile.Identity)? {
        let path = temporaryFolder + "/\(getpid())-\(UInt64.random(in: 0...UInt64.max)).tmp"
        if let identity = EntryFile.write(data, to: path) { return (path, identity) }
        // The folder may have been removed by hand or by another process: make it and retry once.
        mkdir(temporaryFolder, 0o700)
        return EntryFile.write(data, to: path).map { (path, $0) }
    }

    // MARK: Eviction

    /// Lists every entry, removes the least recently used until the total fits `maxBytes`, and
    /// records the total. Runs outside the lock (only one scan per process at a time).
    private func scanAndEvict() {
        var entries: [(path: String, folder: String, size: Int64, used: Double)] = []
        for folderName in EntryFile.names(in: root) where Self.isDigestName(folderName) {
            let folder = root + "/" + folderName
            for name in EntryFile.names(in: folder) where Self.isVariantName(name) {
                let path = folder + "/" + name
                if let identity = EntryFile.identity(path) {
                    entries.append((path, folder, identity.size, identity.modified))
                }
            }
        }
        var total = entries.reduce(Int64(0)) { $0 + $1.size }
        if total > maxBytes {
            var emptied = Set<String>()
            for entry in entries.sorted(by: { $0.used < $1.used }) {
                guard total > maxBytes else { break }
                if unlink(entry.path) == 0 || errno == ENOENT {
                    total -= entry.size
                    emptied.insert(entry.folder)
                    decoded.forget(entry.path)
                }
            }
            // Fails harmlessly on a folder that still holds entries (or just got a new one).
            for folder in emptied { rmdir(folder) }
        }
        removeAbandonedTemporaries()
        accounting.withLock { accounting in
            accounting.estimate = total
            accounting.writtenSinceScan = 0
            accounting.isScanning = false
        }
    }

    private func removeFolder(_ folder: String) {
        for name in EntryFile.names(in: folder) where Self.isVariantName(name) {
            unlink(folder + "/" + name)
        }
        rmdir(folder)
        decoded.forget(folder: folder)
    }

    private func removeAbandonedTemporaries() {
        let now = Date().timeIntervalSince1970
        for name in EntryFile.names(in: temporaryFolder) where name.hasSuffix(".tmp") {
            let path = temporaryFolder + "/" + name
            if let identity = EntryFile.identity(path), now - identity.modified > Self.abandonedTemporaryAge {
                unlink(path)
            }
        }
    }

    // MARK: Names

    /// The folder of a URL's entries: the salted SHA-256 of the URL, as hex (unsalted, a
    /// guessed URL could be confirmed by anyone who can list the directory).
    private func folder(for url: String) -> String {
        root + "/" + urlName(url)
    }

    /// How files name a URL: its salted SHA-256 as hex, the name of its folder too.
    private func urlName(_ url: String) -> String {
        SHA256Digest.hex(of: salt + Array(url.utf8))
    }

    /// 64 lower-case hex digits: a URL's folder.
    static func isDigestName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy(isHexDigit)
    }

    /// 32 hex digits, a dash, 32 hex digits: an entry.
    static func isVariantName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 65, bytes[32] == UInt8(ascii: "-") else { return false }
        return bytes[..<32].allSatisfy(isHexDigit) && bytes[33...].allSatisfy(isHexDigit)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 97 && byte <= 102)
    }
}
