import Foundation
import HTTPTransport
import XCTest

/// One transport shared by many threads; connections reused across sends and threads.
final class ConcurrencyTests: XCTestCase {
    func testEightThreadsSharingOneTransportEachGetTheirOwnResponse() throws {
        let transport = HTTPTransport()
        let mismatches = Recorder<String>()
        let failures = Recorder<String>()
        let perThread = 50
        let base = server.http
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<perThread {
                let token = "t\(thread)-\(index)"
                let request = HTTPRequest(httpMethod: index % 2 == 0 ? .get : .post, endpoint: base + "/anything/\(token)")
                    .with(parameters: ["token": token], encoding: .url)
                    .with(header: "X-Token", value: token)
                switch transport.send(request: request) {
                case .success(let response):
                    let echo = (try? JSONSerialization.jsonObject(with: response.body ?? Data())) as? [String: Any]
                    let args = echo?["args"] as? [String: Any]
                    let headers = echo?["headers_dict"] as? [String: String]
                    if echo?["path"] as? String != "/anything/\(token)" || args?["token"] as? String != token
                        || headers?["x-token"] != token {
                        mismatches.add(token)
                    }
                case .failure(let error):
                    failures.add("\(token): \(error)")
                }
            }
        }
        XCTAssertEqual(failures.values, [])
        XCTAssertEqual(mismatches.values, [])
    }

    func testSequentialSendsReuseOneConnection() throws {
        let transport = HTTPTransport()
        var connectionIDs = Set<Int>()
        var reused = 0
        for _ in 0..<200 {
            let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/connection-id"))
            if let id = try echo(response)["connection_id"] as? Int { connectionIDs.insert(id) }
            if response.metrics.connectionReused { reused += 1 }
        }
        XCTAssertEqual(connectionIDs.count, 1)
        XCTAssertEqual(reused, 199, "every send after the first reuses the connection")
    }

    func testRequestSentTwiceBehavesTheSame() throws {
        let transport = HTTPTransport(requestInterceptors: [ClosureRequestInterceptor { request in
            var request = request
            request.addValue("1", forHTTPHeaderField: "X-Added")
            return request
        }])
        let request = HTTPRequest(httpMethod: .post, endpoint: server.http + "/anything").with(parameters: ["a": 1], encoding: .json)
        let first = try echo(try sendOK(transport, request))
        let second = try echo(try sendOK(transport, request))
        XCTAssertEqual(first["headers_dict"] as? [String: String] == nil, false)
        XCTAssertEqual((first["headers_dict"] as? [String: String])?["x-added"], "1")
        XCTAssertEqual((second["headers_dict"] as? [String: String])?["x-added"], "1")
        XCTAssertEqual(first["body_text"] as? String, second["body_text"] as? String)
        XCTAssertEqual(request.requestInterceptors.count, 0)
    }

    func testStubEngineServesCannedResponsesWithoutANetwork() throws {
        let stub = StubEngine { request in
            RawResponse(request: request, statusCode: .created, headers: ["Content-Type": "application/json"],
                        data: Data(#"{"path":"\#(request.url.path)"}"#.utf8))
        }
        let transport = HTTPTransport(session: Session(engine: stub))
        let response = try XCTUnwrap(transport.send(request: HTTPRequest(endpoint: "http://api.invalid/users")).value)
        XCTAssertEqual(response.httpStatus, .created)
        XCTAssertEqual(try response.getJSONDictionary()?["path"] as? String, "/users")
    }
}
