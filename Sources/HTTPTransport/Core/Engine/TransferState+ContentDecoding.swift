import CCurl
import Foundation

/// A coded body (`Content-Encoding: gzip`, `br`, …) going to memory or a file is decoded here,
/// not by libcurl (whose decoding is off for every transfer): one decoder for every path, which
/// is what lets a body in a coding libcurl cannot decode pass through as it came on libcurl 8
/// too (libcurl 8 fails it at the header, before any callback could turn its decoding off), and
/// keeps a stream's decoding (`StreamReceiver+Decoding.swift`) the same as a plain send's.
/// A body in memory is decoded within the session's `maxResponseSize`, so a compression bomb
/// fails with `.responseTooLarge`.
extension TransferState {
    /// Decoded bytes handed to the sink at a time.
    static let decodedPieceSize = 64 * 1024

    /// The final head listed content codings: the body gets a decoder, or passes as it came
    /// (only `identity`, or a coding this build cannot decode: the header stays, as browsers do).
    func beginDecoding() {
        // (Once per transfer: chunked trailers end with a blank line libcurl hands over too, and a
        // fresh decoder then would hide a body whose coded data was cut short.)
        guard storedError == nil, bodyDecoder == nil else { return }
        do {
            bodyDecoder = try ContentDecoder.make(contentEncoding: headers.values("Content-Encoding"), url: requestURL)
        } catch {
            storedError = error
        }
    }

    /// A chunk of a coded body: decoded a piece at a time, each piece to the sink.
    func receiveDecoded(_ chunk: UnsafeRawBufferPointer, decoder: ContentDecoder) -> Int {
        var input = chunk
        let piece = decoder.outputBuffer(Self.decodedPieceSize)
        while true {
            guard let produced = decoder.decode(&input, into: piece) else {
                storedError = decoder.invalidDataError(url: requestURL)
                return 0
            }
            if produced > 0 {
                switch sink.receive(UnsafeRawBufferPointer(rebasing: piece[..<produced]), state: self) {
                case .proceed: break
                // (Only a stream pauses, and a stream decodes its own body.)
                case .pause, .abort: return 0
                }
            }
            // (Less than a piece: the decoder needs the next chunk.)
            if produced < piece.count { return chunk.count }
        }
    }

    /// The error of a coded body that ended before its coded data did (cut short), once the
    /// transfer itself succeeded; a kept body cut on purpose is not one.
    func unfinishedDecoding() -> HTTPTransportError? {
        if sink.decodesContent { return sink.unfinishedDecoding(state: self) }
        guard let bodyDecoder, !memory.cutShort else { return nil }
        return bodyDecoder.unfinishedError(url: requestURL)
    }
}
