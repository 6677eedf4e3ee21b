import CCurl
import Foundation

extension CurlEngine {
    /// `response` with the request head the transfer sent (`RawResponse.sentHeaders`), when its
    /// request asked for it and a head went out (none when the connection failed first).
    func withSentHead(_ response: RawResponse, of transfer: CurlTransfer) -> RawResponse {
        guard response.request.keepsSentHead else { return response }
        let head = transfer.handle.sentHead.pointee.buffer
        guard head.count > 0, let bytes = head.bytes else { return response }
        var response = response
        response.sentHeaders = Self.sentHeaderFields(UnsafeBufferPointer(start: bytes, count: head.count))
        return response
    }

    /// The header fields of a request head as written (request line left out, up to the blank
    /// line); the value without the blanks around it, as a receiver reads it.
    static func sentHeaderFields(_ head: UnsafeBufferPointer<UInt8>) -> HTTPHeaders {
        let text = String(decoding: head, as: UTF8.self)
        var fields: [HTTPHeaders.Field] = []
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false).dropFirst() {
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields.append(HTTPHeaders.Field(name: String(line[..<colon]), value: value))
        }
        return HTTPHeaders(fields)
    }
}
