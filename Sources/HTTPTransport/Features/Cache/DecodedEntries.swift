import Foundation

/// Entries of a cache directory that this process has read or written, kept decoded while their
/// file keeps its identity (device, inode, size, modification time). Entries are only ever
/// replaced by renaming a new file over them, so a hit on an unchanged file costs a `stat`
/// instead of a read, a checksum and a decode, and a file another process replaced or removed
/// is seen at once. At most `maxBytes` are kept, the least recently used dropped first.
final class DecodedEntries: Sendable {
    private struct Entry: Sendable {
        var identity: EntryFile.Identity
        let response: StoredResponse
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        var recency = RecencyList<String>()
        var bytes = 0
    }

    private let maxBytes: Int
    private let state = Locked(State())

    init(maxBytes: Int64) { self.maxBytes = Int(clamping: maxBytes) }

    /// The response decoded from `path` when the file still has `identity`.
    func response(at path: String, identity: EntryFile.Identity) -> StoredResponse? {
        state.withLock { state in
            guard let entry = state.entries[path], entry.identity == identity else { return nil }
            state.recency.touch(path)
            return entry.response
        }
    }

    /// Remembers what the file at `path`, with `identity`, holds.
    func remember(_ response: StoredResponse, at path: String, identity: EntryFile.Identity) {
        guard response.cost <= maxBytes else { return }
        state.withLock { state in
            if let old = state.entries.updateValue(Entry(identity: identity, response: response), forKey: path) {
                state.bytes -= old.response.cost
            }
            state.bytes += response.cost
            state.recency.touch(path)
            while state.bytes > maxBytes, let oldest = state.recency.leastRecent {
                Self.forget(oldest, in: &state)
            }
        }
    }

    /// Notes that this process set the file's modification time (its use), so the next `stat`
    /// still matches. The inode stays part of the identity: if the file was replaced in the
    /// meantime, the new one does not match and is read.
    func restamp(_ path: String, modified time: timespec) {
        state.withLock { state in
            state.entries[path]?.identity.modifiedSeconds = time.tv_sec
            state.entries[path]?.identity.modifiedNanoseconds = time.tv_nsec
        }
    }

    /// Forgets `path`.
    func forget(_ path: String) {
        state.withLock { Self.forget(path, in: &$0) }
    }

    /// Forgets every path in `folder`.
    func forget(folder: String) {
        let prefix = folder + "/"
        state.withLock { state in
            let paths = state.entries.keys.filter { $0.hasPrefix(prefix) }
            for path in paths { Self.forget(path, in: &state) }
        }
    }

    /// Forgets everything.
    func forgetAll() {
        state.withLock { $0 = State() }
    }

    private static func forget(_ path: String, in state: inout State) {
        state.recency.remove(path)
        if let removed = state.entries.removeValue(forKey: path) { state.bytes -= removed.response.cost }
    }
}
