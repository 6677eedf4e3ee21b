import Foundation
import HTTPTransport
import XCTest

/// What a send came to, as far as the server and the caller can tell: the failure kind, or the
/// status and what the echo route received (method, path, query, header lines in order, body or
/// multipart parts). Compared between a reused handle and a brand-new transport.
struct TransferOutcome: Equatable, CustomStringConvertible {
    var failure: HTTPTransportError.Code?
    var status: Int?
    /// What the server received, one line per fact (`method GET`, `header X-A: 1`, …).
    var received: [String] = []
    var body: Data?
    /// Whether libcurl's progress callback ran (`nil`: the send asked for no progress).
    var libcurlReportedProgress: Bool?

    var description: String {
        if let failure { return "failure \(failure)" }
        let progress = libcurlReportedProgress.map { " progress \($0)" } ?? ""
        return "status \(status ?? 0)\(progress) body \(body?.count ?? -1) bytes\n  " + received.joined(separator: "\n  ")
    }

    /// Header lines that differ between two sends of the same request by design: the multipart
    /// boundary is random per body.
    static func normalised(header name: String, _ value: String) -> String {
        guard name.caseInsensitiveCompare("Content-Type") == .orderedSame, let range = value.range(of: "boundary=") else {
            return value
        }
        return value[..<range.upperBound] + "*"
    }

    /// The outcome of `result`; `downloaded` is the file the body went to, when it did.
    static func of(_ result: HTTPTransport.Result, downloaded: URL? = nil, progressReports: Int? = nil) -> TransferOutcome {
        let response: HTTPResponse
        switch result {
        case .failure(let error): return TransferOutcome(failure: error.code)
        case .success(let success): response = success
        }
        var outcome = TransferOutcome(status: response.httpStatus.rawValue)
        outcome.libcurlReportedProgress = progressReports.map { $0 >= 2 }  // the engine adds one final report itself
        let data = downloaded.flatMap { try? Data(contentsOf: $0) } ?? response.body ?? Data()
        guard let echo = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            outcome.body = data
            return outcome
        }
        for key in ["method", "path", "query", "listener"] { outcome.received.append("\(key) \(echo[key] ?? "-")") }
        for pair in echo["headers"] as? [[String]] ?? [] where pair.count == 2 {
            outcome.received.append("header \(pair[0]): \(normalised(header: pair[0], pair[1]))")
        }
        if let parts = echo["multipart"] as? [[String: Any]] {
            for part in parts {
                let fields = ["name", "filename", "content_type", "size", "sha256"].map { "\(part[$0] ?? "-")" }
                outcome.received.append("part " + fields.joined(separator: " "))
            }
        } else {
            outcome.body = (echo["body_base64"] as? String).flatMap { Data(base64Encoded: $0) }
        }
        return outcome
    }
}

/// A deterministic pseudo-random sequence (SplitMix64), so a failing sequence can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    mutating func bytes(_ count: Int) -> Data {
        var data = Data(capacity: count)
        while data.count < count {
            var word = next()
            withUnsafeBytes(of: &word) { data.append(contentsOf: $0.prefix(count - data.count)) }
        }
        return data
    }
}
