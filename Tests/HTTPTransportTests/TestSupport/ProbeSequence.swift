import Foundation
import HTTPTransport

/// The kinds of send in `TransferOptionsEquivalenceTests`' sequence, and how often each comes.
extension ProbeStep {
    private enum Kind: CaseIterable {
        case get, head, bodiless, copiedBody, largeBody, emptyBody, jsonGET, fileUpload, multipart, download
        case progress, progressCancels, cancellable, preCancelled, slowAfterQuick, mustTimeOut, tls, status, overOneMiB

        var weight: Int {
            switch self {
            case .get, .copiedBody, .tls: 8
            case .head, .bodiless, .largeBody, .emptyBody, .fileUpload, .multipart, .download, .progress, .cancellable: 4
            case .jsonGET, .progressCancels, .preCancelled, .slowAfterQuick, .mustTimeOut, .status, .overOneMiB: 2
            }
        }
    }

    /// The names of the kinds, which start every step's summary.
    static var kindNames: Set<String> { Set(Kind.allCases.map { "\($0)" }) }

    /// Header sets drawn from a small pool, so consecutive sends often repeat (or drop) a set.
    private static let headerPool: [(String, String)] = [
        ("X-A", "1"), ("X-B", "two words"), ("X-Empty", ""), ("Accept", "application/json"),
        ("User-Agent", "Probe/1"), ("Accept-Encoding", "identity"),
    ]

    /// The sends of step `index` (one, or two for a slow request right after a quick one).
    static func random(_ index: Int, files: [URL], server: TestServer, using generator: inout SeededGenerator) -> [ProbeStep] {
        let total = Kind.allCases.reduce(0) { $0 + $1.weight }
        var pick = Int.random(in: 0..<total, using: &generator)
        let kind = Kind.allCases.first { kind in
            defer { pick -= kind.weight }
            return pick < kind.weight
        } ?? .get
        var headers: [String: String] = [:]
        for (name, value) in headerPool where Int.random(in: 0..<3, using: &generator) == 0 { headers[name] = value }
        let timeout: TimeInterval = Int.random(in: 0..<4, using: &generator) == 0 ? 2 : 30
        let base = HTTPRequest(endpoint: server.http + "/anything/\(index)?step=\(index)", headers: headers, timeout: timeout)
        let bodyMethod = [HTTPRequest.HTTPMethod.post, .put, .patch].randomElement(using: &generator) ?? .post
        let name = "\(kind) \(headers.keys.sorted())"

        switch kind {
        case .get:
            return [plain(name, base)]
        case .head:
            return [plain(name, with(base, method: .head))]
        case .bodiless:
            return [plain(name, with(base, method: [.delete, .options].randomElement(using: &generator) ?? .delete))]
        case .copiedBody, .largeBody, .emptyBody, .overOneMiB:
            return upload(kind, name, base, method: bodyMethod, using: &generator)
        case .jsonGET:
            return [plain(name, base.with(parameters: ["n": index, "s": "text"], encoding: .json))]
        case .fileUpload:
            let file = files.randomElement(using: &generator) ?? files[0]
            var request = with(base, method: bodyMethod).uploading(file: file)
            request.timeout = 30
            return [plain("\(name) \(bodyMethod) \(file.lastPathComponent)", request)]
        case .multipart:
            return [plain(name, multipart(base, files: files, using: &generator))]
        case .download:
            return [ProbeStep(summary: name) { transport, file in
                sent(transport.send(request: base.downloading(to: file)), downloaded: file)
            }]
        case .progress, .progressCancels:
            let request = Bool.random(using: &generator)
                ? HTTPRequest(endpoint: server.http + "/bytes/300000", headers: headers) : base
            return [withProgress(name, request, continues: kind == .progress)]
        case .cancellable, .preCancelled:
            return [ProbeStep(summary: name) { transport, _ in
                let handle = CancellationHandle()
                if kind == .preCancelled { handle.cancel() }
                return sent(transport.send(request: base, control: TransferControl(cancellation: handle)))
            }]
        case .slowAfterQuick, .mustTimeOut:
            return timed(kind, server: server)
        case .tls:
            return [overTLS(name, base, index: index, server: server, using: &generator)]
        case .status:
            let status = [404, 500, 201, 204].randomElement(using: &generator) ?? 404
            return [plain("\(name) status \(status)", HTTPRequest(endpoint: server.http + "/status/\(status)", headers: headers))]
        }
    }

    /// A body of the kind's size with `method`; over 1 MiB, right after a bodiless send with the
    /// same header fields: libcurl would ask for `100 Continue` unless the header list (which
    /// must change with the body) says not to.
    private static func upload(_ kind: Kind, _ name: String, _ base: HTTPRequest, method: HTTPRequest.HTTPMethod,
                               using generator: inout SeededGenerator) -> [ProbeStep] {
        let size = switch kind {
        case .copiedBody: Int.random(in: 1...2000, using: &generator)
        case .largeBody: Int.random(in: 70_000...150_000, using: &generator)
        case .overOneMiB: 1_100_000
        default: 0
        }
        var headers = base.headers
        if kind == .overOneMiB { headers["Content-Type"] = "application/octet-stream" }  // as the upload's
        let request = DataUploadHTTPRequest(httpMethod: method, endpoint: base.endpoint, headers: headers,
                                            data: generator.bytes(size), timeout: size > 2000 ? 30 : base.timeout)
        let upload = plain("\(name) \(method) \(size) bytes", request)
        var bodiless = base
        bodiless.headers = headers
        return kind == .overOneMiB ? [plain(name, bodiless), upload] : [upload]
    }

    /// Time-outs: a quick send leaves a short time-out on the handle that the slow one after it
    /// must not inherit; a slow send that must time out.
    private static func timed(_ kind: Kind, server: TestServer) -> [ProbeStep] {
        let slow = server.http + "/delay/1.2"
        guard kind == .slowAfterQuick else {
            return [plain("\(kind): GET /delay/1.2, 0.3 s", HTTPRequest(endpoint: slow, timeout: 0.3))]
        }
        return [plain("\(kind): quick GET (1 s)", HTTPRequest(endpoint: server.http + "/anything/quick", timeout: 1)),
                plain("\(kind): slow GET (20 s)", HTTPRequest(endpoint: slow, timeout: 20))]
    }

    /// The request to one of the TLS origins (pinned right, pinned wrong, unpinned), with or
    /// without a JSON body.
    private static func overTLS(_ name: String, _ base: HTTPRequest, index: Int, server: TestServer,
                                using generator: inout SeededGenerator) -> ProbeStep {
        let origins = [server.https(), server.https(host: "127.0.0.1"),
                       "https://other.example:\(server.ports["https_otherhost"] ?? 0)"]
        let origin = origins.randomElement(using: &generator) ?? origins[0]
        var request = base
        request.endpoint = origin + "/anything/tls/\(index)"
        if Bool.random(using: &generator) { request = request.with(parameters: ["tls": index], encoding: .json) }
        return plain("\(name) \(origin)", request)
    }

    private static func with(_ request: HTTPRequest, method: HTTPRequest.HTTPMethod) -> HTTPRequest {
        var request = request
        request.httpMethod = method
        return request
    }

    private static func multipart(_ base: HTTPRequest, files: [URL],
                                  using generator: inout SeededGenerator) -> FileUploadHTTPRequest {
        let part = Bool.random(using: &generator)
            ? FileMultipart(fileURL: files.randomElement(using: &generator) ?? files[0], partName: "file", fileName: "f.bin",
                            mimeType: "application/octet-stream")
            : FileMultipart(data: generator.bytes(Int.random(in: 0...5000, using: &generator)), partName: "data",
                            fileName: "d.txt", mimeType: "text/plain")
        var request = FileUploadHTTPRequest(endpoint: base.endpoint, headers: base.headers, fileMultipart: part, timeout: 30)
        if Bool.random(using: &generator) { request = request.with(parameters: ["note": "n"], encoding: .form) }
        return request
    }

    private static func plain(_ summary: String, _ request: some HTTPRequestEnvelope) -> ProbeStep {
        ProbeStep(summary: summary) { transport, _ in sent(transport.send(request: request, control: TransferControl())) }
    }

    private static func withProgress(_ summary: String, _ request: HTTPRequest, continues: Bool) -> ProbeStep {
        ProbeStep(summary: summary) { transport, _ in
            let reports = Recorder<TransferProgress>()
            let result = transport.send(request: request, control: TransferControl(progress: { report in
                reports.add(report)
                return continues
            }))
            return sent(result, progressReports: reports.count)
        }
    }

    private static func sent(_ result: HTTPTransport.Result, downloaded: URL? = nil, progressReports: Int? = nil) -> Sent {
        Sent(result: result, outcome: TransferOutcome.of(result, downloaded: downloaded, progressReports: progressReports))
    }
}
