import ExampleServer
import Foundation
import HTTPTransport
import Synchronization

// MARK: - Client side: the CSRF token and its interceptor

/// Holds the CSRF token of the current session; read by `CSRFTokenInterceptor` on every send.
final class CSRFTokenStore: Sendable {
    private let token = Mutex<String?>(nil)

    func set(_ value: String?) { token.withLock { $0 = value } }
    func get() -> String? { token.withLock { $0 } }
}

/// Adds `X-CSRF-Token` to unsafe requests (`POST`, `PUT`, `PATCH`, `DELETE`) once a token is
/// known, as Drupal requires for cookie-authenticated writes. Safe methods go out unchanged.
struct CSRFTokenInterceptor: HTTPRequestInterceptor {
    let store: CSRFTokenStore

    func intercept(request: RawRequest) throws -> RawRequest {
        switch request.method {
        case .get, .head, .options, .trace: return request
        default: break
        }
        guard let token = store.get() else { return request }
        var request = request
        request.setValue(token, forHTTPHeaderField: "X-CSRF-Token")
        return request
    }
}

// MARK: - Client side: Drupal's JSON shapes

/// The body of `POST /user/login?_format=json`.
struct LoginResponse: Decodable {
    struct CurrentUser: Decodable {
        let uid: String
        let name: String
    }

    let currentUser: CurrentUser
    let csrfToken: String
    let logoutToken: String

    enum CodingKeys: String, CodingKey {
        case currentUser = "current_user"
        case csrfToken = "csrf_token"
        case logoutToken = "logout_token"
    }
}

/// Drupal wraps every field value in a list of items: `"title": [{"value": "Hello"}]`.
struct FieldItem<Value: Decodable>: Decodable {
    let value: Value
}

/// A node (an article), read from and written as Drupal's field-item JSON.
struct Node: Decodable {
    var nid: Int?
    var type: String
    var title: String
    var body: String

    init(type: String, title: String, body: String) {
        self.type = type
        self.title = title
        self.body = body
    }

    private struct TargetItem: Decodable { let target_id: String }

    enum CodingKeys: String, CodingKey { case nid, type, title, body }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        nid = try container.decodeIfPresent([FieldItem<Int>].self, forKey: .nid)?.first?.value
        type = try container.decode([TargetItem].self, forKey: .type).first?.target_id ?? ""
        title = try container.decode([FieldItem<String>].self, forKey: .title).first?.value ?? ""
        body = try container.decodeIfPresent([FieldItem<String>].self, forKey: .body)?.first?.value ?? ""
    }

    /// The parameters of a create or update request, in Drupal's shape.
    var drupalJSON: [String: Any] {
        [
            "type": [["target_id": type]],
            "title": [["value": title]],
            "body": [["value": body]],
        ]
    }
}

/// The body of `GET /user/{uid}?_format=json` (two of its fields).
struct User: Decodable {
    let uid: Int
    let name: String

    enum CodingKeys: String, CodingKey { case uid, name }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uid = try container.decode([FieldItem<Int>].self, forKey: .uid).first?.value ?? 0
        name = try container.decode([FieldItem<String>].self, forKey: .name).first?.value ?? ""
    }
}

// MARK: - Server side: a fake Drupal 8 site

/// Just enough of Drupal 8's REST API for the example: cookie sessions with CSRF tokens, Basic
/// auth, and node CRUD, with Drupal's status codes and `{"message": …}` error bodies.
struct FakeDrupalSite {
    let server: ExampleServer
    var baseURL: String { server.baseURL }

    private struct Session {
        let uid: Int
        let csrfToken: String
        let logoutToken: String
    }

    /// The site's data behind a lock (the server serves each connection on its own thread).
    private final class SiteState: Sendable {
        let mutex = Mutex(State())
    }

    private struct State {
        var sessions: [String: Session] = [:]  // session id → session
        var nodes: [Int: [String: String]] = [1: ["type": "page", "title": "Welcome", "body": "Members only."]]
        var nextNid = 2
    }

    static let cookieName = "SESS" + String(repeating: "5f3a", count: 8)
    static let basicCredentials = "Basic " + Data("admin:correct horse".utf8).base64EncodedString()

    static func start() throws -> FakeDrupalSite {
        let state = SiteState()
        let server = try ExampleServer { request in
            state.mutex.withLock { handle(request, state: &$0) }
        }
        return FakeDrupalSite(server: server)
    }

    private static func message(_ text: String, status: Int) -> ExampleServer.Response {
        .json(["message": text], status: status)
    }

    private static func token() -> String {
        (0..<4).map { _ in String(UInt32.random(in: .min ... .max), radix: 36) }.joined()
    }

    private static func nodeJSON(_ nid: Int, _ node: [String: String]) -> [String: Any] {
        [
            "nid": [["value": nid]],
            "type": [["target_id": node["type"] ?? "article"]],
            "title": [["value": node["title"] ?? ""]],
            "body": [["value": node["body"] ?? ""]],
        ]
    }

    private static func fieldValue(_ json: [String: Any]?, _ name: String, key: String = "value") -> String? {
        ((json?[name] as? [[String: Any]])?.first?[key]) as? String
    }

    private static func handle(_ request: ExampleServer.Request, state: inout State) -> ExampleServer.Response {
        let parts = request.pathComponents
        if parts == ["session", "token"] {
            let sid = request.cookie(cookieName) ?? ""
            return .text(state.sessions[sid]?.csrfToken ?? "anonymous-token")
        }
        guard request.query["_format"] == "json" else {
            return message("Not acceptable format: html", status: 406)
        }
        if request.method == "POST", parts == ["user", "login"] {
            return logIn(request, state: &state)
        }

        // Who is asking: a session cookie, Basic auth, or nobody.
        let sid = request.cookie(cookieName)
        let session = sid.flatMap { state.sessions[$0] }
        let basicAuth = request.header("Authorization") == basicCredentials
        if let refusal = accessRefusal(request, session: session, basicAuth: basicAuth) {
            return refusal
        }

        switch (request.method, parts) {
        case ("POST", ["user", "logout"]):
            guard let sid, request.query["token"] == session?.logoutToken else {
                return message("'csrf_token' URL query argument is invalid.", status: 403)
            }
            state.sessions[sid] = nil
            return .empty(status: 204, headers: [("Set-Cookie", "\(cookieName)=deleted; Max-Age=0; Path=/; HttpOnly")])
        case ("GET", let path) where path.count == 2 && path[0] == "user":
            guard path[1] == "1" else { return message("The requested page could not be found.", status: 404) }
            return .json(["uid": [["value": 1]], "name": [["value": "admin"]], "status": [["value": true]]])
        case ("POST", ["node"]):
            return createNode(request, state: &state)
        case (let method, let path) where path.count == 2 && path[0] == "node":
            return nodeRequest(request, method: method, nid: path[1], state: &state)
        default:
            return message("No route found for \"\(request.method) \(request.path)\"", status: 404)
        }
    }

    /// `POST /user/login`: a new session with its CSRF and logout tokens, for the right credentials.
    private static func logIn(_ request: ExampleServer.Request, state: inout State) -> ExampleServer.Response {
        guard let credentials = request.json, credentials["name"] as? String == "admin",
              credentials["pass"] as? String == "correct horse" else {
            return message("Sorry, unrecognized username or password.", status: 400)
        }
        let sid = token()
        let session = Session(uid: 1, csrfToken: token(), logoutToken: token())
        state.sessions[sid] = session
        return .json(
            ["current_user": ["uid": "1", "roles": ["authenticated", "administrator"], "name": "admin"],
             "csrf_token": session.csrfToken, "logout_token": session.logoutToken],
            headers: [("Set-Cookie", "\(cookieName)=\(sid); Max-Age=2000000; Path=/; HttpOnly; SameSite=Lax")])
    }

    /// Drupal's 403 for a request with neither a session nor Basic auth, and for a cookie
    /// session's write without the right CSRF token (Basic auth needs none); nil when allowed.
    private static func accessRefusal(_ request: ExampleServer.Request, session: Session?,
                                      basicAuth: Bool) -> ExampleServer.Response? {
        guard session != nil || basicAuth else {
            return message("The 'access content' permission is required.", status: 403)
        }
        guard let session, !basicAuth, ["POST", "PUT", "PATCH", "DELETE"].contains(request.method),
              request.pathComponents != ["user", "logout"] else { return nil }
        guard let sent = request.header("X-CSRF-Token") else {
            return message("X-CSRF-Token request header is missing", status: 403)
        }
        guard sent == session.csrfToken else {
            return message("X-CSRF-Token request header is invalid", status: 403)
        }
        return nil
    }

    /// `POST /node`: a new node from Drupal's field-item JSON (a title is required).
    private static func createNode(_ request: ExampleServer.Request, state: inout State) -> ExampleServer.Response {
        guard let title = fieldValue(request.json, "title"), !title.isEmpty else {
            return message("Unprocessable Entity: validation failed.\ntitle: This value should not be null.", status: 422)
        }
        let nid = state.nextNid
        state.nextNid += 1
        let node = ["type": fieldValue(request.json, "type", key: "target_id") ?? "article", "title": title,
                    "body": fieldValue(request.json, "body") ?? ""]
        state.nodes[nid] = node
        return .json(nodeJSON(nid, node), status: 201, headers: [("Location", "/node/\(nid)?_format=json")])
    }

    /// `GET`, `PATCH` or `DELETE /node/{nid}`.
    private static func nodeRequest(_ request: ExampleServer.Request, method: String, nid text: String,
                                    state: inout State) -> ExampleServer.Response {
        guard let nid = Int(text), var node = state.nodes[nid] else {
            return message("The \"node\" parameter was not converted for the path \"/node/{node}\" (method: \"\(method)\")",
                           status: 404)
        }
        switch method {
        case "GET":
            return .json(nodeJSON(nid, node))
        case "PATCH":
            if let title = fieldValue(request.json, "title") { node["title"] = title }
            if let body = fieldValue(request.json, "body") { node["body"] = body }
            state.nodes[nid] = node
            return .json(nodeJSON(nid, node))
        case "DELETE":
            state.nodes[nid] = nil
            return .empty(status: 204)
        default:
            return message("No route found for \"\(method) /node/\(nid)\": Method Not Allowed", status: 405)
        }
    }
}
