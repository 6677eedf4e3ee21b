import Foundation

/// Whether the end of a transfer's round wakes the stream's reader for what the round handed
/// over (`StreamingConsumer.handedOver`), or puts the wake-up off for a moment.
///
/// A round ends whenever the socket has nothing more to read this instant, which for a fast
/// stream is many times a MiB; waking the reader each time, for whatever the round brought, made
/// most of a fast read's wake-ups (each costs two threads woken for a reader on the main actor).
/// So after a round that brought a full read or more (`bulk`: more is likely on its way), the
/// wake-up waits: the buffer wakes the reader itself once half of it waits
/// (`StreamBuffer.wakesConsumer`), and the next round's end wakes it unless that round brought
/// bulk again. The loop then sleeps at most `putOffAtMost` before that round (`nextCheck`), so
/// bytes that arrived last wait at most that long. The first bytes are never put off (the time
/// to the first chunk stays as it was), nor are a slow stream's (its rounds bring less).
struct StreamRoundWake {
    /// A round that brought this many body bytes or more is bulk: libcurl's whole receive buffer.
    static let bulk = CurlEngine.receiveBufferSize
    /// The longest a put-off wake-up waits for the next round's end.
    static let putOffAtMost: Duration = .milliseconds(1)

    /// Body bytes that arrived since the last round's end.
    private var arrived = 0
    /// A round's end with bytes woke the reader already.
    private var wokeForBytes = false
    /// The last round's end put the wake-up off.
    private(set) var isPutOff = false

    /// Body bytes arrived (any chunk the write callback got, a re-delivered one too).
    mutating func add(_ count: Int) { arrived += count }

    /// Whether body bytes arrived in this round.
    var hasArrivals: Bool { arrived > 0 }

    /// The round ended: whether to wake the reader now.
    mutating func roundEnded() -> Bool {
        defer { arrived = 0 }
        isPutOff = wokeForBytes && arrived >= Self.bulk
        if arrived > 0 { wokeForBytes = true }
        return !isPutOff
    }
}
