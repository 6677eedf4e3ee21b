import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Responses in a directory, so they survive restarts and can be shared by several processes.
///
/// Layout: `<directory>/<SHA-256 of the URL>/<variant name>`, one file per stored response
/// (`StoredResponseCoding`), temporary files in `<directory>/.tmp/`. The design needs no lock
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
/// Files are created `0600` and folders `0700`: cached bodies are the user's data. Nothing is
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

    /// Temporary files older than this are left over from a crashed writer.
    static let abandonedTemporaryAge: Double = 600

    init(directory: URL, maxBytes: Int64) {
        root = directory.standardizedFileURL.path
        temporaryFolder = root + "/.tmp"
        self.maxBytes = max(0, maxBytes)
        try? FileManager.default.createDirectory(atPath: temporaryFolder, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
    }

    func responses(for key: CacheKey) -> [StoredResponse] {
        let folder = root + "/" + key.urlDigest
        let prefix = String(key.credentialDigest.prefix(32)) + "-"
        var result: [StoredResponse] = []
        for name in Self.names(in: folder) where name.hasPrefix(prefix) && Self.isVariantName(name) {
            let path = folder + "/" + name
            switch EntryFile.read(path, limit: maxBytes) {
            case .missing:
                continue
            case .corrupt:
                unlink(path)
            case .contents(let data):
                guard let response = StoredResponseCoding.decode(data) else {
                    unlink(path)
                    continue
                }
                if response.url == key.url, response.credentialDigest == key.credentialDigest,
                   response.variantName == name {
                    result.append(response)
                }
            }
        }
        return result
    }

    func store(_ response: StoredResponse) {
        let data = StoredResponseCoding.encode(response)
        guard Int64(data.count) <= maxBytes else { return }
        let folder = root + "/" + SHA256Digest.hex(of: Data(response.url.utf8))
        let path = folder + "/" + response.variantName
        guard let temporary = writeTemporary(data) else { return }
        let replaced = EntryFile.size(path) ?? 0
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
        let folder = root + "/" + SHA256Digest.hex(of: Data(response.url.utf8))
        EntryFile.touch(folder + "/" + response.variantName)
    }

    func remove(_ response: StoredResponse) {
        let folder = root + "/" + SHA256Digest.hex(of: Data(response.url.utf8))
        unlink(folder + "/" + response.variantName)
    }

    func removeAll(url: String) {
        removeFolder(root + "/" + SHA256Digest.hex(of: Data(url.utf8)))
    }

    func removeAll() {
        for name in Self.names(in: root) where Self.isDigestName(name) {
            removeFolder(root + "/" + name)
        }
        removeAbandonedTemporaries()
        accounting.withLock { accounting in
            accounting.estimate = nil
            accounting.writtenSinceScan = 0
        }
    }

    // MARK: Writing

    /// Writes `data` to a new temporary file stamped with the current time; its path, or nil.
    private func writeTemporary(_ data: Data) -> String? {
        let path = temporaryFolder + "/\(getpid())-\(UInt64.random(in: 0...UInt64.max)).tmp"
        if EntryFile.write(data, to: path) { return path }
        // The folder may have been removed by hand or by another process: make it and retry once.
        try? FileManager.default.createDirectory(atPath: temporaryFolder, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        return EntryFile.write(data, to: path) ? path : nil
    }

    // MARK: Eviction

    /// Lists every entry, removes the least recently used until the total fits `maxBytes`, and
    /// records the total. Runs outside the lock (only one scan per process at a time).
    private func scanAndEvict() {
        var entries: [(path: String, folder: String, size: Int64, used: Double)] = []
        for folderName in Self.names(in: root) where Self.isDigestName(folderName) {
            let folder = root + "/" + folderName
            for name in Self.names(in: folder) where Self.isVariantName(name) {
                let path = folder + "/" + name
                if let status = EntryFile.status(path) {
                    entries.append((path, folder, status.size, status.modified))
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
        for name in Self.names(in: folder) where Self.isVariantName(name) {
            unlink(folder + "/" + name)
        }
        rmdir(folder)
    }

    private func removeAbandonedTemporaries() {
        let now = Date().timeIntervalSince1970
        for name in Self.names(in: temporaryFolder) where name.hasSuffix(".tmp") {
            let path = temporaryFolder + "/" + name
            if let status = EntryFile.status(path), now - status.modified > Self.abandonedTemporaryAge {
                unlink(path)
            }
        }
    }

    // MARK: Names

    private static func names(in folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
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
