import Foundation

/// The bounded buffer between a stream's transfer and its consumer, as a value (the rules,
/// without locks or threads; `StreamChannel` guards it). The transfer offers chunks while they
/// fit in `limit` bytes; a full buffer answers `.pause` and the transfer waits until the
/// consumer has taken it below half, so a slowly read stream of any length holds at most
/// `limit` bytes (plus a piece offered `evenIfFull`, and the one chunk taken last).
///
/// The hand-off back is two-sided: the transfer is paused from its `.pause` until it looks
/// (`resume()`, on its own thread, between rounds) and finds room. Only that look ends the pause:
/// the bytes a paused transfer still hands over at a round's end can fill the buffer past half
/// again after the consumer took it below, and the consumer must then wake the transfer again
/// when it next makes room. Each look re-arms the consumer's wake-up, so whatever the interleaving
/// a paused transfer is never left asleep while the buffer has room.
struct StreamBuffer {
    /// How a stream ended.
    enum End: Equatable {
        case finished
        case failed(HTTPTransportError)

        static func == (lhs: End, rhs: End) -> Bool {
            switch (lhs, rhs) {
            case (.finished, .finished): true
            case (.failed(let a), .failed(let b)): a.code == b.code && a.message == b.message
            default: false
            }
        }
    }

    /// What the consumer gets next.
    enum Next: Equatable {
        /// A chunk; `resumes` when taking it drained a paused buffer (wake the transfer).
        case chunk(Data, resumes: Bool)
        /// Nothing yet: wait.
        case empty
        /// The end (after every chunk was taken).
        case end(End)
    }

    /// 512 KiB: eight of the transfer's pieces, enough to keep a fast consumer busy; with the
    /// piece being gathered, libcurl's held chunk and the consumer's last chunk, a slowly read
    /// stream holds under 1 MiB (Benchmarks/streaming.sh measures it).
    static let defaultLimit = 512 << 10

    let limit: Int
    private var chunks: [Data] = []
    private var first = 0
    /// Bytes offered and not yet taken.
    private(set) var bufferedBytes = 0
    /// The transfer was told to pause and has not gone on since (`resume()`).
    private(set) var isPaused = false
    /// The consumer woke the paused transfer since the transfer last looked (one wake-up a look,
    /// however many chunks the consumer takes meanwhile).
    private var woke = false
    /// How the transfer ended (chunks may still wait before it).
    private(set) var end: End?

    init(limit: Int = StreamBuffer.defaultLimit) { self.limit = max(1, limit) }

    /// The transfer's next chunk: taken (`.more`), refused because the buffer is full (`.pause`;
    /// offer it again later), or refused because the stream ended (`.stop`).
    mutating func offer(_ chunk: Data, evenIfFull: Bool = false) -> StreamingAnswer {
        guard end == nil else { return .stop }
        if !evenIfFull, bufferedBytes > 0, bufferedBytes + chunk.count > limit {
            isPaused = true
            return .pause
        }
        chunks.append(chunk)
        bufferedBytes += chunk.count
        return .more
    }

    /// Bytes the buffer keeps alive, taken chunks included (equal to `bufferedBytes` when it lets
    /// go of what it handed out).
    var retainedBytes: Int { chunks.reduce(0) { $0 + $1.count } }

    /// Whether a waiting consumer should be woken now rather than at the end of the transfer's
    /// round (`StreamChannel.handedOver()`): half the buffer waits. Each wake-up then hands over
    /// several pieces, and wake-ups are what a fast reader mostly costs: one on the main actor is
    /// resumed on a pool thread and hops to the main queue, two threads woken each time. The
    /// other half keeps the transfer going while the reader wakes.
    var wakesConsumer: Bool { bufferedBytes >= limit / 2 }

    /// Whether a chunk waits to be taken.
    var hasChunk: Bool { first < chunks.count }

    /// Whether a paused transfer may go on: the consumer took the buffer below half.
    var wantsMore: Bool { end == nil && bufferedBytes < limit / 2 }

    /// The consumer's next chunk, the end, or nothing yet.
    mutating func take() -> Next {
        guard first < chunks.count else { return end.map(Next.end) ?? .empty }
        let chunk = chunks[first]
        // The slot lets go of the bytes at once: a buffer that is never empty (a steady stream)
        // would otherwise keep every chunk it ever held.
        chunks[first] = Data()
        first += 1
        bufferedBytes -= chunk.count
        if first == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            first = 0
        } else if first >= 256 {
            chunks.removeFirst(first)
            first = 0
        }
        let resumes = isPaused && wantsMore && !woke
        if resumes { woke = true }
        return .chunk(chunk, resumes: resumes)
    }

    /// The paused transfer's look between its rounds, after it handed over what it gathered:
    /// `true` when it may go on (and is no longer paused). Either way the consumer wakes it again
    /// the next time it takes a chunk with room to spare.
    mutating func resume() -> Bool {
        woke = false
        guard wantsMore else { return false }
        isPaused = false
        return true
    }

    /// The transfer ended: the consumer gets the chunks still waiting, then `end`.
    mutating func finish(_ end: End) {
        if self.end == nil { self.end = end }
    }

    /// The consumer gave up: what waits is dropped, and the stream ends with `error`.
    mutating func cancel(_ error: HTTPTransportError) {
        chunks.removeAll()
        first = 0
        bufferedBytes = 0
        end = .failed(error)
    }
}
