import Foundation

/// One entry of an archive as a replay needs it. Read leniently, as browsers write archives:
/// fields of their own (`_transferSize`, `_initiator`, …) are ignored, optional fields may be
/// missing, `content.text` may be absent (an empty body), numbers may be integers or not.
struct RecordedExchange: Sendable {
    let method: String
    let url: ArchiveURLPattern
    /// `METHOD URL` as recorded, for messages.
    let display: String
    let status: Int
    let headers: HTTPHeaders
    let body: Data
    /// A recorded failure: an entry without a response status (browsers write status 0).
    let failure: HTTPTransportError.Code?
    let failureMessage: String
    let metrics: TransferMetrics

    /// The entries of a HAR document, in recorded order.
    static func entries(of data: Data) throws(HTTPTransportError) -> [RecordedExchange] {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw notArchive("it is not JSON (\(error.localizedDescription))")
        }
        guard let log = (json as? [String: Any])?["log"] as? [String: Any],
              let entries = log["entries"] as? [Any]
        else { throw notArchive("it has no \"log\" object with an \"entries\" list") }
        var exchanges: [RecordedExchange] = []
        exchanges.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            let exchange: RecordedExchange?
            do {
                exchange = try RecordedExchange(entry as? [String: Any] ?? [:])
            } catch {
                throw HTTPTransportError(code: .badResponse, message: "The HTTP archive cannot be replayed: entry \(index) "
                    + "(\(error.display)) \(error.reason). Fix or remove that entry.")
            }
            guard let exchange else {
                throw notArchive("entry \(index) lacks request.method, request.url (absolute) or response.status (0 to 999)")
            }
            exchanges.append(exchange)
        }
        return exchanges
    }

    /// An entry whose response cannot be handed to the app as recorded.
    private struct UnreplayableEntry: Error {
        let display: String
        let reason: String
    }

    private static func notArchive(_ reason: String) -> HTTPTransportError {
        HTTPTransportError(code: .badResponse,
                           message: "The data is not an HTTP archive (HAR 1.2): \(reason). Record one with HTTPArchiveRecorder or export one from a browser's network panel.")
    }

    /// Throws `UnreplayableEntry` for a response header with CR, LF or NUL and for `base64`
    /// content that is not base64: the app would get a header the network never gives it, or
    /// an empty body for one that had bytes.
    private init?(_ entry: [String: Any]) throws(UnreplayableEntry) {
        guard let request = entry["request"] as? [String: Any], let response = entry["response"] as? [String: Any],
              let method = request["method"] as? String, let urlText = request["url"] as? String,
              let url = ArchiveURLPattern(urlText), let status = Self.number(response["status"]),
              (0...999).contains(status), status.rounded() == status
        else { return nil }
        self.method = method.uppercased()
        self.url = url
        display = "\(self.method) \(urlText)"
        self.status = Int(status)
        var fields: [HTTPHeaders.Field] = []
        for value in response["headers"] as? [Any] ?? [] {
            if let field = try Self.header(value, display: display) { fields.append(field) }
        }
        headers = HTTPHeaders(fields)
        let content = response["content"] as? [String: Any] ?? [:]
        if let text = content["text"] as? String {
            let encoding = content["encoding"] as? String
            guard let data = ArchiveBody.data(text: text, encoding: encoding) else {
                throw UnreplayableEntry(display: display, reason: "has response content in \(encoding ?? "") that is not valid base64")
            }
            body = data
        } else {
            body = Data()
        }
        let errorText = response["_error"] as? String ?? entry["_error"] as? String
        if self.status == 0 {
            let name = response["_errorCode"] as? String
            failure = HTTPTransportError.Code.allCases.first { String(describing: $0) == name } ?? .other
            failureMessage = errorText ?? "The recorded exchange got no response."
        } else {
            failure = nil
            failureMessage = ""
        }
        metrics = Self.metrics(entry, response: response, bodySize: body.count)
    }

    /// A response header. One holding CR, LF or NUL is refused: the network path never hands
    /// the app one (it splits header lines at line breaks), and the app may copy it into a
    /// header line of its own.
    private static func header(_ value: Any, display: String) throws(UnreplayableEntry) -> HTTPHeaders.Field? {
        guard let header = value as? [String: Any], let name = header["name"] as? String else { return nil }
        let value = header["value"] as? String ?? ""
        guard HeaderFieldRules.isValidValue(name), HeaderFieldRules.isValidValue(value) else {
            let shownName = String(name.unicodeScalars.map { $0.escaped(asASCII: true) }.joined().prefix(100))
            throw UnreplayableEntry(display: display, reason: "has a response header \"\(shownName)\" whose name or value "
                + "holds CR, LF or NUL")
        }
        return HTTPHeaders.Field(name: name, value: value)
    }

    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let value as Int: return Double(value)
        case let value as Double: return value
        case let value as NSNumber: return value.doubleValue
        default: return nil
        }
    }

    /// The figures a recording has: total time, first byte, version, server address.
    private static func metrics(_ entry: [String: Any], response: [String: Any], bodySize: Int) -> TransferMetrics {
        var metrics = TransferMetrics()
        let time = max(0, number(entry["time"]) ?? 0)
        metrics.total = time / 1000
        if let receive = number((entry["timings"] as? [String: Any])?["receive"]), receive >= 0, receive <= time {
            metrics.firstByte = (time - receive) / 1000
        }
        metrics.bytesReceived = Int64(bodySize)
        metrics.httpVersion = transferVersion(response["httpVersion"] as? String ?? "")
        var address = entry["serverIPAddress"] as? String ?? ""
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        metrics.remoteAddress = address
        return metrics
    }

    /// `TransferMetrics.httpVersion` from HAR's spelling: ours (`HTTP/1.1`, `HTTP/2`) and browsers'
    /// (`http/2.0`, `h2`, `h3`).
    static func transferVersion(_ version: String) -> String {
        var version = version.lowercased()
        if version.hasPrefix("http/") { version.removeFirst(5) } else if version.hasPrefix("h"), version.count == 2 {
            version.removeFirst()
        }
        return version.hasSuffix(".0") && version != "1.0" ? String(version.dropLast(2)) : version
    }
}
