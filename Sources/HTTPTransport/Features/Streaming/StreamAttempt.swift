import Foundation

/// The consumer one exchange of an async stream hands its transfer (`StreamChannel.exchange`):
/// the channel, told which exchange speaks, so that an abandoned exchange's transfer (a retrier
/// repeated it) is refused and stopped instead of reaching the reader.
final class StreamAttempt: StreamingConsumer {
    let channel: StreamChannel
    let number: Int

    init(channel: StreamChannel, number: Int) {
        self.channel = channel
        self.number = number
    }

    func headArrived(_ head: RawResponse) -> HTTPTransportError? { channel.headArrived(head, of: number) }

    func receive(_ chunk: Data, evenIfFull: Bool) -> StreamingAnswer { channel.receive(chunk, evenIfFull: evenIfFull, of: number) }

    func handedOver() { channel.handedOver(of: number) }

    var wantsMore: Bool { channel.wantsMore }

    func resume() -> Bool { channel.resume(of: number) }

    var lastTaken: ContinuousClock.Instant? { channel.lastTaken }

    func setWaker(_ waker: (@Sendable () -> Void)?) { channel.setWaker(waker, of: number) }

    /// (A repeat is the retrier's to decide until the head is handed over: the channel's.)
    var isCommitted: Bool { channel.isCommitted }
}
