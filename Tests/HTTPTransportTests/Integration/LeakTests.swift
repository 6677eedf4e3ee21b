import Foundation
import HTTPTransport
import XCTest

/// What LeakSanitizer (`scripts/sanitizers.sh`) and the chaos soak found: memory the library
/// kept longer than it needed.
final class LeakTests: XCTestCase {
    func testIdlePooledHandleDoesNotKeepTheLastRequestsBody() throws {
        let transport = HTTPTransport()
        let released = Protected(false)
        do {
            // Small enough for libcurl to copy (sent with the headers); freed through this deallocator.
            let count = 1000
            let bytes = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 1)
            bytes.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "a"), count: count)
            let body = Data(bytesNoCopy: bytes, count: count, deallocator: .custom { pointer, _ in
                pointer.deallocate()
                released.value = true
            })
            let response = try sendOK(transport, DataUploadHTTPRequest(endpoint: server.http + "/post", data: body))
            XCTAssertEqual(try echo(response)["body_text"] as? String, String(repeating: "a", count: count))
        }
        // The handle is back in the transport's pool, idle: it must not hold the body.
        XCTAssertTrue(released.value, "the idle handle still holds the last request's body")
        withExtendedLifetime(transport) {}
    }
}
