// DependentRequests: a script of requests that depend on each other, in the style of the seed's
// "Basic dependent requests" and of a Drupal 8 REST client (Waterwheel): log in, keep the
// session cookie and the CSRF token, then create, read, update and delete a node, and log out.
// Every request is built on one base request.
//
//   swift run DependentRequests
//   swift run DependentRequests --record flow.har    # the same, every exchange kept in a HAR file
//   swift run DependentRequests --replay flow.har    # the same flow from the file: no server, no network
//
// The "Drupal site" is a local server this program starts on 127.0.0.1; it mimics Drupal's
// REST endpoints: POST /user/login, GET /session/token, POST /node, GET|PATCH|DELETE /node/{nid},
// POST /user/logout (each with ?_format=json), cookie sessions and the X-CSRF-Token header.
import ExampleServer
import Foundation
import HTTPTransport

let checks = ExampleChecks(name: "DependentRequests")
let connection = try SiteConnection.fromArguments(CommandLine.arguments)
let baseURL = connection.baseURL
print("Drupal-like site: \(baseURL)\n")

// MARK: - The client's moving parts

/// Cookies received from the site (the session cookie) are kept here and sent back.
let cookies = CookieStorage()

/// The CSRF token Drupal wants on every unsafe request of a cookie session.
let csrfToken = CSRFTokenStore()

/// `--verbose` logs every request and response (to standard error, through swift-log).
let verbose = CommandLine.arguments.contains("--verbose")

let transport = HTTPTransport(
    session: connection.session,
    requestInterceptors: [
        AddCookieInterceptor(cookieProvider: cookies),
        // Last, so it logs what is sent; Cookie and X-CSRF-Token show as <redacted>.
        LogRequestInterceptor(logLevel: verbose ? .headers : .nothing, redaction: .default.hiding(headers: ["X-CSRF-Token"])),
    ],
    responseInterceptors: [
        ReceivedCookieInterceptor(cookieStorage: cookies),
        LogResponseInterceptor(logLevel: verbose ? .everything : .nothing,
                               redaction: .default.hiding(bodyFields: ["csrf_token", "logout_token"])),
        ClarifyErrorInterceptor(),  // Drupal errors are {"message": "…"}
    ] + connection.recording  // with --record, the HTTPArchiveRecorder
)

/// The base request: the site's address, JSON everywhere (`?_format=json` and `Accept`), and the
/// CSRF interceptor. Every request below is `HTTPRequest(…, base: drupal)`.
let drupal = HTTPRequest(endpoint: baseURL, timeout: 10)
    .with(header: "Accept", value: "application/json")
    .with(parameter: "_format", value: "json", encoding: .url)
    .with(interceptors: [CSRFTokenInterceptor(store: csrfToken)])

// MARK: - 1. Log in

print("1. POST /user/login")
var logoutToken = ""
let login = HTTPRequest(httpMethod: .post, endpoint: "/user/login", base: drupal)
    .with(parameters: ["name": "admin", "pass": "correct horse"], encoding: .json)

switch transport.send(request: login) {
case .success(let response):
    let body = try response.decode(LoginResponse.self)
    csrfToken.set(body.csrfToken)
    let sessionCookie = cookies.cookies(for: URL(string: baseURL)!).first
    print("   logged in as \(body.currentUser.name) (uid \(body.currentUser.uid))")
    print("   session cookie \(sessionCookie?.name ?? "-") stored, CSRF token \(body.csrfToken.prefix(6))…")
    checks.expect(sessionCookie?.name.hasPrefix("SESS") == true, "the session cookie is in the cookie storage")
    checks.expect(sessionCookie?.isHTTPOnly == true, "the session cookie is HttpOnly")
    checks.expect(!body.csrfToken.isEmpty, "the login response carries a CSRF token")
    logoutToken = body.logoutToken
case .failure(let error):
    checks.fail("log in: \(error)")
    checks.finish()
}

// A fresh token can also be fetched on its own: GET /session/token answers text/plain.
let tokenResult = transport.send(request: HTTPRequest(endpoint: "/session/token", base: drupal))
checks.expect(tokenResult.value?.getString() == csrfToken.get(), "GET /session/token returns the same token")

// MARK: - 2. Create

print("2. POST /node")
let article = Node(type: "article", title: "Hello World", body: "How are you?")
let create = HTTPRequest(httpMethod: .post, endpoint: "/node", base: drupal)
    .with(parameters: article.drupalJSON, encoding: .json)
var nid = 0
switch transport.send(request: create) {
case .success(let response):
    let created = try response.decode(Node.self)
    nid = created.nid ?? 0
    print("   \(response.httpStatus.rawValue) created node \(nid) at \(response.header(named: "Location") ?? "-")")
    checks.expect(response.httpStatus == .created, "the node was created (201)")
    checks.expect(created.title == "Hello World", "the site stored the title")
case .failure(let error):
    checks.fail("create: \(error)")
}

// MARK: - 3. Read

print("3. GET /node/\(nid)")
let read = HTTPRequest(endpoint: "/node/\(nid)", base: drupal)
if let node = try transport.send(request: read).value?.decode(Node.self) {
    print("   \"\(node.title)\": \(node.body)")
    checks.expect(node.body == "How are you?", "the node reads back as created")
} else {
    checks.fail("read node \(nid)")
}

// MARK: - 4. Update

print("4. PATCH /node/\(nid)")
let update = HTTPRequest(httpMethod: .patch, endpoint: "/node/\(nid)", base: drupal)
    .with(parameters: Node(type: "article", title: "Hello again", body: "Fine, thanks.").drupalJSON, encoding: .json)
switch transport.send(request: update) {
case .success(let response):
    let updated = try response.decode(Node.self)
    print("   \(response.httpStatus.rawValue) title is now \"\(updated.title)\"")
    checks.expect(updated.title == "Hello again", "the title was updated")
case .failure(let error):
    checks.fail("update: \(error)")
}
let reread = try transport.send(request: read).value?.decode(Node.self)  // the same request value, sent again
checks.expect(reread?.body == "Fine, thanks.", "reading again shows the update (a request value can be sent twice)")

// What the CSRF interceptor is for: the same PATCH without the token is refused.
print("   without X-CSRF-Token:")
let unprotected = HTTPRequest(httpMethod: .patch, endpoint: baseURL + "/node/\(nid)?_format=json")
    .with(parameters: ["title": [["value": "Hijacked"]]], encoding: .json)
if let error = transport.send(request: unprotected).error {
    print("   \(error.httpStatusCode?.rawValue ?? 0): \(error.responseBodyErrorMessage ?? error.message)")
    checks.expect(error.httpStatusCode == .forbidden, "an unsafe request without the token gets 403")
    checks.expect(error.responseBodyErrorMessage == "X-CSRF-Token request header is missing",
                  "ClarifyErrorInterceptor read Drupal's message")
} else {
    checks.fail("the request without a CSRF token was accepted")
}

// MARK: - 5. Delete

print("5. DELETE /node/\(nid)")
let delete = HTTPRequest(httpMethod: .delete, endpoint: "/node/\(nid)", base: drupal)
let deleted = transport.send(request: delete)
print("   \(deleted.value.map { "\($0.httpStatus.rawValue) \($0.httpStatus.reasonPhrase)" } ?? "\(deleted.error!)")")
checks.expect(deleted.value?.httpStatus == .noContent, "the node was deleted (204)")

let gone = transport.send(request: read)
print("   GET again: \(gone.error?.httpStatusCode?.rawValue ?? 0) \(gone.error?.responseBodyErrorMessage ?? "")")
checks.expect(gone.error?.httpStatusCode == .notFound, "the deleted node is gone (404)")

// MARK: - 6. Basic auth instead of a cookie (stateless, no CSRF token needed)

print("6. GET /user/1 with Basic auth, no cookie")
let basic = HTTPRequest(endpoint: baseURL + "/user/1?_format=json").with(basicAuthUser: "admin", password: "correct horse")
// A second transport without the cookie interceptors (on the same session, so it records or replays too).
let noCookies = HTTPTransport(session: connection.session, responseInterceptors: [ClarifyErrorInterceptor()] + connection.recording)
let account = try noCookies.send(request: basic).value?.decode(User.self)
print("   user \(account?.uid ?? 0): \(account?.name ?? "-")")
checks.expect(account?.name == "admin", "Basic auth works without a session")

// MARK: - 7. Log out

print("7. POST /user/logout")
let logout = HTTPRequest(httpMethod: .post, endpoint: "/user/logout", base: drupal)
    .with(parameter: "token", value: logoutToken, encoding: .url)
let loggedOut = transport.send(request: logout)
checks.expect(loggedOut.value?.httpStatus == .noContent, "logged out (204)")
checks.expect(cookies.cookies(for: URL(string: baseURL)!).isEmpty, "the expired session cookie left the storage")
let anonymous = transport.send(request: HTTPRequest(endpoint: "/node/1", base: drupal))
print("   after logout: \(anonymous.error?.httpStatusCode?.rawValue ?? 0) \(anonymous.error?.responseBodyErrorMessage ?? "")")
checks.expect(anonymous.error?.httpStatusCode == .forbidden, "requests after logout are anonymous (403)")

try connection.finish()
checks.finish()
