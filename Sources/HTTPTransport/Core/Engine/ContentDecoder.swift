import CCurl
import Foundation

/// A body's content decoding, done by the engine instead of libcurl (`ccurl_decoder`), for every
/// transfer (`TransferState+ContentDecoding.swift`). For a stream this matters most: libcurl
/// decodes everything it read at once, and while a stream is paused it holds what it decoded (up
/// to 64 MiB, then "Out of memory"), so a small compressed read could become tens of mebibytes
/// held per stream. Decoded here, a body decodes only as far as its consumer has room for; the
/// input not yet decoded stays with libcurl (`StreamReceiver`).
///
/// The codings are libcurl's (`CurlEngine.decodesEveryContentCoding`): a body listing one this
/// build cannot decode passes through as it came, as a body in memory does.
final class ContentDecoder {
    private let decoder: OpaquePointer
    /// The `Content-Encoding` value, for messages.
    let codings: String
    /// Whether any input went in: an empty body needs no end of the coded data.
    private(set) var tookInput = false
    /// Where decoded bytes land (`outputBuffer`), freed with the decoder.
    private var output: UnsafeMutableRawBufferPointer?

    private init(decoder: OpaquePointer, codings: String) {
        self.decoder = decoder
        self.codings = codings
    }

    deinit {
        ccurl_decoder_free(decoder)
        output?.deallocate()
    }

    /// A buffer of `size` bytes for the decoded output, the same one on every call.
    func outputBuffer(_ size: Int) -> UnsafeMutableRawBufferPointer {
        if let output, output.count == size { return output }
        output?.deallocate()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        output = buffer
        return buffer
    }

    /// The decoder for a response's `Content-Encoding` values (in order): nil when the body
    /// passes as it came (no coding but `identity`, or one libcurl would not decode either).
    static func make(contentEncoding values: [String], url: String) throws(HTTPTransportError) -> ContentDecoder? {
        let value = values.joined(separator: ", ")
        guard !value.isEmpty, CurlEngine.decodesEveryContentCoding(value) else { return nil }
        var codings: [Int32] = []
        for member in value.split(separator: ",") {
            switch member.trimmingCharacters(in: CharacterSet(charactersIn: " \t")).lowercased() {
            case "gzip", "x-gzip": codings.append(Int32(CCURL_CODING_GZIP))
            case "deflate": codings.append(Int32(CCURL_CODING_DEFLATE))
            case "br": codings.append(Int32(CCURL_CODING_BR))
            case "zstd": codings.append(Int32(CCURL_CODING_ZSTD))
            default: break  // identity, none, empty members
            }
        }
        guard !codings.isEmpty else { return nil }
        guard codings.count <= Int(CCURL_MAX_CODINGS) else {
            throw HTTPTransportError(code: .badResponse, message: "The response lists \(codings.count) content codings (Content-Encoding: \(value)); at most \(CCURL_MAX_CODINGS) are decoded.",
                                     url: url)
        }
        guard let decoder = ccurl_decoder_create(codings, codings.count) else {
            throw HTTPTransportError(code: .other, message: "No memory for decoding the response body (Content-Encoding: \(value)).", url: url)
        }
        return ContentDecoder(decoder: decoder, codings: value)
    }

    /// Decodes from `input` (advanced past what was used) into `output`: the bytes written, fewer
    /// than `output.count` only when more input is needed; nil when the data is not valid.
    func decode(_ input: inout UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
        guard let target = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        if !input.isEmpty { tookInput = true }
        var next: UnsafePointer<UInt8>? = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var length = input.count
        let written = ccurl_decoder_decode(decoder, &next, &length, target, output.count)
        input = UnsafeRawBufferPointer(start: next, count: length)
        return written < 0 ? nil : written
    }

    /// Why the data is not valid, for `.badResponse`.
    func invalidDataError(url: String) -> HTTPTransportError {
        HTTPTransportError(code: .badResponse,
                           message: "The response body could not be decoded (Content-Encoding: \(codings)): \(String(cString: ccurl_decoder_error(decoder))).",
                           url: url)
    }

    /// The error for a body that ended before its coded data did (cut short), nil when it did not.
    func unfinishedError(url: String) -> HTTPTransportError? {
        guard tookInput, ccurl_decoder_finished(decoder) == 0 else { return nil }
        return HTTPTransportError(code: .badResponse,
                                  message: "The response body ended before its coded data did (Content-Encoding: \(codings)): the body was cut short.",
                                  url: url)
    }
}
