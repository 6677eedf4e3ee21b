import Foundation

extension StreamReceiver {
    /// A chunk of a coded body (libcurl's decoding is off for streams, see `ContentDecoder`):
    /// decoded a piece at a time, each piece into `pending` (or the kept body), and no further
    /// than the consumer has room for. When its buffer is full the chunk is refused with a pause:
    /// libcurl keeps it, undecoded (at most one read), hands it again on resume, and what was
    /// decoded of it already is skipped then (`decodedAhead`). So a paused stream holds its
    /// consumer's buffer and a piece, whatever the body's compression ratio.
    func receiveCoded(_ chunk: UnsafeRawBufferPointer, decoder: ContentDecoder, state: TransferState) -> BodyAnswer {
        let skipped = min(decodedAhead, chunk.count)
        let aheadOfLaterChunks = decodedAhead - skipped
        var input = UnsafeRawBufferPointer(rebasing: chunk[skipped...])
        while true {
            // (A full piece, or one refused before, goes out before more is decoded.)
            if streamsBody, pending.room == 0, let answer = offerPending(state) {
                if answer == .pause { decodedAhead = chunk.count - input.count + aheadOfLaterChunks }
                return answer
            }
            // A streamed body is decoded straight into its piece; a kept one through a buffer.
            let target = streamsBody ? pending.tail() : keptDecodeBuffer()
            guard let produced = decoder.decode(&input, into: target) else {
                state.storedError = decoder.invalidDataError(url: state.requestURL)
                return .abort
            }
            if streamsBody {
                pending.advance(by: produced)
            } else if produced > 0, state.memory.receive(UnsafeRawBufferPointer(rebasing: target[..<produced]), state: state) != .proceed {
                return .abort
            }
            // (Less than asked for: the decoder needs the next chunk.)
            if produced < target.count { break }
        }
        decodedAhead = aheadOfLaterChunks
        return .proceed
    }

    /// Where a kept (not streamed) body's decoded bytes land before they join it.
    private func keptDecodeBuffer() -> UnsafeMutableRawBufferPointer {
        let buffer = decodeBuffer ?? .allocate(byteCount: Self.pieceSize, alignment: 16)
        decodeBuffer = buffer
        return buffer
    }

    /// The error of a coded body that ended before its coded data did (a body cut at its kept
    /// limit on purpose aside), once the transfer itself succeeded.
    func unfinishedDecoding(state: TransferState) -> HTTPTransportError? {
        guard let decoder, !state.memory.cutShort else { return nil }
        return decoder.unfinishedError(url: state.requestURL)
    }
}
