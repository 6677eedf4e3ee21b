import Foundation
import HTTPTransport
import XCTest

/// URL, form and JSON encoding vectors (Alamofire's conventions).
final class ParameterEncodingTests: XCTestCase {
    private func query(_ parameters: [String: Any]) throws -> String? {
        try HTTPRequest(endpoint: "http://127.0.0.1:9/").with(parameters: parameters, encoding: .url).resolve().url.query
    }

    func testArraysUseEmptyBrackets() throws {
        XCTAssertEqual(try query(["foo": [1, 2]]), "foo%5B%5D=1&foo%5B%5D=2")
    }

    func testNestedDictionariesUseBracketedKeys() throws {
        XCTAssertEqual(try query(["foo": ["bar": "baz", "a": 1]]), "foo%5Ba%5D=1&foo%5Bbar%5D=baz")
    }

    func testKeysAreSortedAtEveryLevel() throws {
        XCTAssertEqual(try query(["b": 1, "a": 2, "c": ["z": 1, "y": 2]]), "a=2&b=1&c%5By%5D=2&c%5Bz%5D=1")
    }

    func testBooleansAreOneAndZero() throws {
        XCTAssertEqual(try query(["t": true, "f": false]), "f=0&t=1")
    }

    func testEscapingKeepsQuestionMarkAndSlashAndEncodesSpacesAsPercent20() throws {
        XCTAssertEqual(try query(["q": "a b?c/d&e=f+g#h"]), "q=a%20b?c/d%26e%3Df%2Bg%23h")
        XCTAssertEqual(try query(["name": "Zoë 🍕"]), "name=Zo%C3%AB%20%F0%9F%8D%95")
        XCTAssertEqual(try query(["unreserved": "-._~"]), "unreserved=-._~")
    }

    func testNumbersAndNull() throws {
        XCTAssertEqual(try query(["i": 42, "d": 1.5, "n": NSNull()]), "d=1.5&i=42&n=")
    }

    func testJSONBodyIsDeterministicAndEscaped() throws {
        let raw = try HTTPRequest(httpMethod: .post, endpoint: "http://127.0.0.1:9/")
            .with(parameters: ["b": [1, 2.5, true, NSNull()], "a": "q\"uo\\te\n", "c": ["x": "é"]], encoding: .json).resolve()
        XCTAssertEqual(raw.httpBody.map { String(decoding: $0, as: UTF8.self) },
                       #"{"a":"q\"uo\\te\n","b":[1,2.5,true,null],"c":{"x":"é"}}"#)
    }

    func testUnsupportedValueFailsNamingTheKey() throws {
        struct Opaque {}
        let request = HTTPRequest(endpoint: "http://127.0.0.1:9/").with(parameters: ["user": ["tags": [1, Opaque()]]], encoding: .json)
        XCTAssertThrowsError(try request.resolve()) { error in
            let error = error as? HTTPTransportError
            XCTAssertEqual(error?.code, .encodingFailed)
            XCTAssertTrue(error?.message.contains("user.tags[1]") ?? false, error?.message ?? "")
        }
        // Through the transport: a failure, never a crash, and nothing is sent.
        let result = HTTPTransport().send(request: request)
        XCTAssertEqual(result.error?.code, .encodingFailed)
        XCTAssertEqual(result.error?.url, "http://127.0.0.1:9/")
    }

    func testNonFiniteNumberFailsToEncode() {
        let request = HTTPRequest(endpoint: "http://127.0.0.1:9/").with(parameters: ["x": Double.nan], encoding: .json)
        XCTAssertEqual(HTTPTransport().send(request: request).error?.code, .encodingFailed)
    }

    func testFoundationValuesFromJSONSerializationAreAccepted() throws {
        let decoded = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(#"{"flag":true,"n":3,"f":1.25,"s":"x","z":null}"#.utf8)) as? [String: Any])
        XCTAssertEqual(try query(decoded), "f=1.25&flag=1&n=3&s=x&z=")
    }
}
