import Foundation

extension StreamReceiver {
    /// A chunk of a coded body (libcurl's decoding is off for streams, see `ContentDecoder`):
    /// decoded a piece at a time, each piece into `pending` (or the kept body), and no further
    /// than the consumer has room for. When its buffer is full the chunk is refused with a pause:
    /// libcurl keeps it, undecoded (at most one read), hands it again on resume, and what was
    /// decoded of it already is skipped then (`decodedAhead`). So a paused stream holds its
    /// consumer's buffer and a piece, whatever the body's compression ratio.
    func receiveCoded(_ chunk: UnsafeRawBufferPointer, decoder: ContentDecoder, state: TransferState) -> BodyAnswer {
        lastActivity = .now
        let skipped = min(decodedAhead, chunk.count)
        let aheadOfLaterChunks = decodedAhead - skipped
        var input = UnsafeRawBufferPointer(rebasing: chunk[skipped...])
        let buffer = decodeBuffer ?? .allocate(byteCount: Self.pieceSize, alignment: 16)
        decodeBuffer = buffer
        while true {
            if streamsBody, pending.count >= Self.pieceSize {
                switch body.consumer.receive(pending, evenIfFull: false) {
                case .more:
                    pending = Data()
                case .pause:
                    isPaused = true
                    decodedAhead = chunk.count - input.count + aheadOfLaterChunks
                    return .pause
                case .stop:
                    pending = Data()
                    stopped(state)
                    return .abort
                }
            }
            let room = streamsBody ? Self.pieceSize - pending.count : buffer.count
            guard let produced = decoder.decode(&input, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<room])) else {
                state.storedError = decoder.invalidDataError(url: state.requestURL)
                return .abort
            }
            let decoded = UnsafeRawBufferPointer(rebasing: buffer[..<produced])
            if streamsBody {
                if pending.isEmpty { pending.reserveCapacity(Self.pieceSize) }
                pending.append(contentsOf: decoded)
            } else if produced > 0, state.memory.receive(decoded, state: state) != .proceed {
                return .abort
            }
            // (Less than asked for: the decoder needs the next chunk.)
            if produced < room { break }
        }
        decodedAhead = aheadOfLaterChunks
        return .proceed
    }

    /// The error of a coded body that ended before its coded data did (a body cut at its kept
    /// limit on purpose aside), once the transfer itself succeeded.
    func unfinishedDecoding(state: TransferState) -> HTTPTransportError? {
        guard let decoder, !state.memory.cutShort else { return nil }
        return decoder.unfinishedError(url: state.requestURL)
    }
}
