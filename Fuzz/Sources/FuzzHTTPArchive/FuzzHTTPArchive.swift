import Foundation
import FuzzSupport
import HTTPTransport

@_cdecl("FuzzHTTPArchive_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzHTTPArchive) }

/// Two readings of the bytes, picked by the first (input: 1 then an archive; or 0, a method byte,
/// the URL after `scheme://`, the status in 8 bytes, a count byte, that many `Name:value` header
/// texts, and the body). Arbitrary bytes as an archive: loading never
/// crashes, and a refusal is `.badResponse` (or `.fileIO`, never anything else). A recorded
/// exchange (method, URL, status, response headers, body): the archive loads, the same request
/// replays it (a redacted URL still matches its original), with its status, its header names in
/// order, and its body byte for byte wherever the redaction left the body as it was; a second
/// identical request finds the entry used and fails with `.other`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPArchive(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    if input.bool() {
        loadArbitrary(Data(input.rest()))
    } else {
        roundTrip(&input)
    }
    return 0
}

private func loadArbitrary(_ bytes: Data) {
    guard case .failure(let error) = Library.engine(bytes) else { return }
    Invariant.check(error.code == .badResponse, "an archive refused with \(error.code): \(error.message)")
}

private func roundTrip(_ input: inout FuzzInput) {
    let methods: [HTTPRequest.HTTPMethod] = [.get, .post, .put, .patch, .delete, .head, .options]
    let method = methods[input.choice(methods.count)]
    let url = FuzzURL.make(scheme: input.bool() ? "https" : "http", rest: input.text())
    let status = 100 + Int(UInt16(truncatingIfNeeded: input.int64()) % 500)
    var headers = HTTPHeaders()
    for _ in 0..<input.choice(9) {
        let line = input.text()
        let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        headers.add(String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }
    let body = Data(input.rest())
    let request = RawRequest(method: method, url: url)
    let recorded = RawResponse(request: request, statusCode: HTTPStatusCode(rawValue: status), headers: headers, data: body)

    let archive: Data
    do {
        archive = try Library.record(recorded)
    } catch {
        Invariant.fail("the recorder could not encode an exchange: \(error)")
    }
    guard case .success(let engine) = Library.engine(archive) else {
        Invariant.fail("the recorder's archive does not load: \(String(decoding: archive, as: UTF8.self))")
    }
    let replayed = Library.replay(request, with: engine)
    Invariant.check(replayed.error == nil, "\(method.rawValue) \(Invariant.show(url.absoluteString)) does not match its own recording: \(replayed.error?.message ?? "")")
    Invariant.check(replayed.statusCode?.rawValue == status, "status \(status) replayed as \(replayed.statusCode?.rawValue ?? 0)")
    // The recorder leaves out headers with CR, LF or NUL, which a replay would refuse.
    let replayable = headers.fields.filter { !($0.name + $0.value).utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 } }
    Invariant.check(replayed.headers.fields.map(\.name) == replayable.map(\.name), "header names changed: \(Invariant.show(headers.fields.map(\.name)))")
    if Library.redactedBody(body, contentType: headers["Content-Type"]) == body {
        Invariant.check(replayed.data == body, "the body \(Invariant.show([UInt8](body))) replayed as \(Invariant.show([UInt8](replayed.data ?? Data())))")
    }
    Invariant.check(Library.replay(request, with: engine).error?.code == .other, "a used entry answered twice")
}
