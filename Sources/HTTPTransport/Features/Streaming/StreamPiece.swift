import Foundation

/// The memory of one stream's pieces, lent again and again: a piece handed to the consumer as
/// `Data` comes back here when the consumer lets go of it, and a later piece is gathered in it.
/// A fresh allocation per piece costs more than the allocation: the pieces the reader frees
/// leave free memory at the top of the transfer thread's malloc arena, which glibc gives back to
/// the system, so the next pieces fault their pages in again, zeroed, and copy into cold cache
/// lines. A stream holds no more memory for its pieces than before: a piece is lent only when
/// none waits here, and at most `kept` wait (what a stream has in flight at once); the rest go
/// back to the system.
final class PiecePool: @unchecked Sendable {
    /// The bytes of each piece.
    let size: Int
    /// The most pieces kept for reuse.
    let kept: Int
    private let lock = NSLock()
    // Guarded by `lock`.
    private var idle: [UnsafeMutableRawPointer] = []
    /// The stream ended: nothing is kept any more (a chunk the reader keeps must not hold the
    /// idle pieces too).
    private var closed = false

    init(size: Int, kept: Int) {
        self.size = size
        self.kept = kept
        idle.reserveCapacity(kept)
    }

    deinit {
        for memory in idle { memory.deallocate() }
    }

    /// Memory for a piece of `size` bytes: one given back earlier, or a new one.
    func lend() -> UnsafeMutableRawPointer {
        lock.withLock { idle.popLast() } ?? .allocate(byteCount: size, alignment: 16)
    }

    /// A piece's memory is free again (its `Data` went, or it was never handed out).
    func giveBack(_ memory: UnsafeMutableRawPointer) {
        let keptIt = lock.withLock { () -> Bool in
            guard !closed, idle.count < kept else { return false }
            idle.append(memory)
            return true
        }
        if !keptIt { memory.deallocate() }
    }

    /// The stream is over: the idle pieces go back to the system now, and so does every piece
    /// given back later.
    func close() {
        let freed = lock.withLock { () -> [UnsafeMutableRawPointer] in
            closed = true
            defer { idle = [] }
            return idle
        }
        for memory in freed { memory.deallocate() }
    }

    /// Pieces waiting for reuse (tests).
    var idleCount: Int { lock.withLock { idle.count } }
}

/// The piece a stream gathers for its consumer: bytes copied from libcurl's chunks into memory
/// from a `PiecePool`, handed over as `Data` that gives the memory back when it goes. A piece
/// the consumer refused (its buffer was full) stays `sealed`: it is offered again as it is, and
/// nothing is added to it.
struct StreamPiece {
    private let pool: PiecePool
    private var memory: UnsafeMutableRawPointer?
    private var sealed: Data?
    /// The bytes gathered.
    private(set) var count = 0

    init(pool: PiecePool) { self.pool = pool }

    /// Nothing gathered.
    var isEmpty: Bool { count == 0 }

    /// Whether it was offered and refused: offer it again before anything is added.
    var isSealed: Bool { sealed != nil }

    /// Bytes that still fit (none once sealed).
    var room: Int { sealed == nil ? pool.size - count : 0 }

    /// Memory for the next `room` bytes; `advance(by:)` counts what was written there.
    mutating func tail() -> UnsafeMutableRawBufferPointer {
        precondition(sealed == nil, "a refused piece is offered again before anything is added")
        let base = memory ?? pool.lend()
        memory = base
        return UnsafeMutableRawBufferPointer(start: base + count, count: pool.size - count)
    }

    mutating func advance(by written: Int) { count += written }

    /// Copies `bytes` in (at most `room` of them).
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let target = tail()
        precondition(bytes.count <= target.count, "a piece holds at most its pool's size")
        target.copyMemory(from: bytes)
        count += bytes.count
    }

    /// The piece as `Data` for an offer (the same `Data` each time until `clear()`): it gives its
    /// memory back to the pool when the last copy of it goes.
    mutating func data() -> Data {
        if let sealed { return sealed }
        guard let memory, count > 0 else { return Data() }
        let pool = pool
        let data = Data(bytesNoCopy: memory, count: count, deallocator: .custom { memory, _ in pool.giveBack(memory) })
        self.memory = nil
        sealed = data
        return data
    }

    /// Empty again, for the next piece: an offered piece now belongs to its `Data`; memory never
    /// handed out is kept for the next piece.
    mutating func clear() {
        sealed = nil
        count = 0
    }

    /// The stream is over: memory never handed out goes back to the system, with the pool's
    /// idle pieces; a piece the reader still holds goes when its `Data` does.
    mutating func release() {
        clear()
        pool.close()
        memory?.deallocate()
        memory = nil
    }
}
