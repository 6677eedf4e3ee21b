// The demo: the seed README's cook book against a local server this program starts itself.
// Run with `bash scripts/demo.sh` (or `swift run Demo`).
import ExampleServer
import Foundation
import HTTPTransport

let sessions = SessionStore()
let server = try ExampleServer { request in
    switch (request.method, request.path) {
    case ("GET", "/json"):
        return .json(["slideshow": ["title": "Sample Slide Show"], "ok": true])
    case ("GET", "/session"):
        let id = UUID().uuidString
        sessions.insert(id)
        return .json(["session_id": id], headers: [("Set-Cookie", "SESSION_ID=\(id); Path=/; HttpOnly")])
    case ("GET", "/user"):
        guard let id = request.cookie("SESSION_ID"), sessions.contains(id) else {
            return .json(["code": "unauthorized", "message": "Log in first"], status: 401)
        }
        return .json(["users": [["first_name": request.query["first_name"] ?? "", "last_name": request.query["last_name"] ?? ""]],
                      "user_agent": request.headers["user-agent"] ?? ""])
    case (_, "/salary"):
        return .json(["method": request.method, "query": request.query, "body": request.json ?? [:]])
    default:
        return .json(["code": "not_found", "message": "No route \(request.path)"], status: 404)
    }
}
print("Local server: \(server.baseURL)\n")

let transport = HTTPTransport()

// Basic GET request
print("1. Basic GET request")
switch transport.send(request: HTTPRequest(endpoint: server.baseURL + "/json")) {
case .success(let response):
    print("   \(response.httpStatus): \(try response.getJSONDictionary() ?? [:])")
case .failure(let error):
    print("   failed: \(error)")
}

// Basic dependent requests
print("2. Dependent requests on one base request")
let baseRequest = HTTPRequest(endpoint: server.baseURL).with(header: "User-Agent", value: "Application/Linux")
let authResult = transport.send(request: HTTPRequest(endpoint: "/session", base: baseRequest))
if let sessionId = (try? authResult.value?.getJSONDictionary())?["session_id"] as? String {
    print("   logged in, session \(sessionId.prefix(8))…")
    let userSearchRequest = HTTPRequest(endpoint: "/user", base: baseRequest)
        .with(cookieName: "SESSION_ID", value: sessionId)
        .with(parameters: ["first_name": "John", "last_name": "Appleseed"], encoding: .url)
    let searchResult = transport.send(request: userSearchRequest)
    print("   users: \((try? searchResult.value?.getJSONDictionary())?["users"] ?? "none")")
    if let metrics = searchResult.value?.metrics {
        print("   connection reused: \(metrics.connectionReused), total \(String(format: "%.2f", metrics.total * 1000)) ms")
    }
}

// POST request with body & URL parameters
print("3. Body and URL parameters")
let updateSalaryRequest = HTTPRequest(
    httpMethod: .post,
    endpoint: server.baseURL + "/salary",
    parameters: [
        HTTPRequestParameters(parameters: ["first_name": "John"], encoding: .url),
        HTTPRequestParameters(parameters: ["salary": 100000], encoding: .json),
    ])
print("   \((try? transport.send(request: updateSalaryRequest).value?.getJSONDictionary()) ?? [:])")

// Errors
print("4. A failing request")
let missing = transport.send(request: HTTPRequest(endpoint: server.baseURL + "/missing"))
if let error = missing.error {
    print("   status \(error.httpStatusCode?.rawValue ?? 0), code \(error.responseBodyErrorCode ?? "-"), message \(error.responseBodyErrorMessage ?? "-")")
}
let refused = transport.send(request: HTTPRequest(endpoint: "http://127.0.0.1:1/", timeout: 2))
print("   refused connection: \(refused.error?.code == .cannotConnect ? "cannotConnect" : "\(String(describing: refused.error))")")

/// A tiny lock-protected set for the demo server's sessions.
final class SessionStore: @unchecked Sendable {
    private var elements = Set<String>()
    private let lock = NSLock()
    func insert(_ element: String) { lock.withLock { _ = elements.insert(element) } }
    func contains(_ element: String) -> Bool { lock.withLock { elements.contains(element) } }
}
