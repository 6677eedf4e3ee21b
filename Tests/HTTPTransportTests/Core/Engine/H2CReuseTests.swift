import Foundation
import HTTPTransport
import XCTest

/// HTTP/2 by prior knowledge (h2c) keeps working past the first send: libcurl 7.88.1 fails every
/// reuse of an h2c prior-knowledge connection ("Error in the HTTP2 framing layer", curl issue
/// #10634, fixed in 8.0.0), so such connections are not reused.
final class H2CReuseTests: XCTestCase {
    static let nginx = SharedPeer({ try NginxPeer(certificates: TestServer.shared.certificates) }, stop: { $0.stop() })

    override class func tearDown() {
        nginx.stop()
        super.tearDown()
    }

    private func priorKnowledgeTransport() -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.httpVersion = .http2PriorKnowledge
        return HTTPTransport(session: Session(configuration: configuration))
    }

    func testManySequentialSendsOverH2CAllSucceed() throws {
        let nginx = try Self.nginx.get()
        let transport = priorKnowledgeTransport()
        for index in 0..<20 {
            let result = transport.send(request: HTTPRequest(endpoint: "http://127.0.0.1:\(nginx.h2cPort)/h2c?\(index)"))
            XCTAssertEqual(result.value?.metrics.httpVersion, "2", "send \(index): \(String(describing: result.error))")
        }
    }

    func testConcurrentSendsOverH2CAllSucceed() throws {
        let nginx = try Self.nginx.get()
        let transport = priorKnowledgeTransport()
        let failures = Recorder<String>()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<10 {
                let result = transport.send(request: HTTPRequest(endpoint: "http://127.0.0.1:\(nginx.h2cPort)/h2c?\(thread)-\(index)"))
                if let error = result.error { failures.add("\(thread)-\(index): \(error)") }
            }
        }
        XCTAssertEqual(failures.values, [])
    }
}
