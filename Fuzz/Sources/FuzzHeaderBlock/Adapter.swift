@testable import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    /// Header lines fed one by one to a transfer, as libcurl's header callback delivers them;
    /// the headers and status code the transfer then holds.
    static func receive(lines: [[UInt8]]) -> (headers: HTTPHeaders, statusCode: Int?) {
        let state = TransferState(maxResponseSize: 1 << 20, control: TransferControl(), requestURL: "http://fuzz.invalid/")
        for line in lines {
            line.withUnsafeBytes { state.receiveHeaderLine($0) }
        }
        return (state.headers, state.statusCode)
    }
}
