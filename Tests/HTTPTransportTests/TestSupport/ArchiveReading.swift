import Foundation
import HTTPTransport
import XCTest

/// The HAR 1.2 fields the tests read back from an archive (the library's own model is internal).
struct HARFile: Decodable {
    struct Log: Decodable {
        var version: String
        var entries: [Entry]
    }

    struct Entry: Decodable {
        var startedDateTime: String
        var time: Double
        var request: Request
        var response: Response
        var timings: Timings
        var serverIPAddress: String?
        var connection: String?
    }

    struct NameValue: Decodable, Equatable {
        var name: String
        var value: String
    }

    struct Cookie: Decodable {
        var name: String
        var value: String
        var httpOnly: Bool?
        var expires: String?
    }

    struct Param: Decodable {
        var name: String
        var value: String?
    }

    struct PostData: Decodable {
        var mimeType: String
        var text: String
        var params: [Param]?
        var encoding: String?

        enum CodingKeys: String, CodingKey {
            case mimeType, text, params
            case encoding = "_encoding"
        }
    }

    struct Request: Decodable {
        var method: String
        var url: String
        var httpVersion: String
        var cookies: [Cookie]
        var headers: [NameValue]
        var queryString: [NameValue]
        var postData: PostData?

        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    }

    struct Content: Decodable {
        var size: Int
        var mimeType: String
        var text: String?
        var encoding: String?
    }

    struct Response: Decodable {
        var status: Int
        var statusText: String
        var httpVersion: String
        var cookies: [Cookie]
        var headers: [NameValue]
        var content: Content
        var redirectURL: String
        var error: String?
        var errorCode: String?

        enum CodingKeys: String, CodingKey {
            case status, statusText, httpVersion, cookies, headers, content, redirectURL
            case error = "_error"
            case errorCode = "_errorCode"
        }

        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    }

    struct Timings: Decodable {
        var blocked: Double?
        var dns: Double?
        var connect: Double?
        var send: Double
        var wait: Double
        var receive: Double
        var ssl: Double?
    }

    var log: Log
}

extension XCTestCase {
    /// The entries of the recorder's archive, decoded.
    func archiveEntries(_ recorder: HTTPArchiveRecorder) throws -> [HARFile.Entry] {
        try JSONDecoder().decode(HARFile.self, from: recorder.archiveData()).log.entries
    }

    /// A file of Tests/HTTPTransportTests/TestSupport/Fixtures (the test target declares no resources).
    func fixtureURL(_ name: String) -> URL {
        TestServer.repositoryRoot.appendingPathComponent("Tests/HTTPTransportTests/TestSupport/Fixtures")
            .appendingPathComponent(name)
    }
}
