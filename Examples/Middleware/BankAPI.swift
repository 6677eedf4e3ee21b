import ExampleServer
import Foundation
import HTTPTransport
import Synchronization

// MARK: - The domain error, and the interceptor that produces it

/// What can go wrong when talking to the bank, in the app's own terms.
enum BankError: Error, Sendable, Equatable, CustomStringConvertible {
    case unauthenticated
    case insufficientFunds(message: String)
    case accountFrozen(message: String)
    case accountNotFound(message: String)
    case unavailable(message: String)
    /// An error body with a code this client does not know.
    case api(code: String, message: String)
    /// No usable answer: a network fault, time-out, an unexpected status without an error body…
    case transport(HTTPTransportError.Code, message: String)

    init(code: String, message: String) {
        switch code {
        case "unauthenticated": self = .unauthenticated
        case "insufficient_funds": self = .insufficientFunds(message: message)
        case "account_frozen": self = .accountFrozen(message: message)
        case "account_not_found": self = .accountNotFound(message: message)
        case "maintenance", "overloaded": self = .unavailable(message: message)
        default: self = .api(code: code, message: message)
        }
    }

    var description: String {
        switch self {
        case .unauthenticated: "unauthenticated"
        case .insufficientFunds(let message): "insufficientFunds: \(message)"
        case .accountFrozen(let message): "accountFrozen: \(message)"
        case .accountNotFound(let message): "accountNotFound: \(message)"
        case .unavailable(let message): "unavailable: \(message)"
        case .api(let code, let message): "api(\(code)): \(message)"
        case .transport(let code, let message): "transport(.\(code)): \(message)"
        }
    }
}

/// Maps the bank's error body, `{"error": {"code": "…", "message": "…"}}`, to a `BankError`
/// stored in the failure's `underlyingError` (read back with `error.bankError`). It also fills
/// `responseBodyErrorCode`/`responseBodyErrorMessage` and makes the message say what happened.
/// Responses without an error, or without such a body, pass through unchanged.
struct BankErrorInterceptor: HTTPResponseInterceptor {
    func intercept(response: RawResponse) -> RawResponse {
        guard var error = response.error, let data = response.data,
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let details = json["error"] as? [String: Any], let code = details["code"] as? String
        else { return response }
        let message = details["message"] as? String ?? ""
        error.responseBodyErrorCode = code
        error.responseBodyErrorMessage = message
        error.message = "Bank API error \(code): \(message)"
        error.underlyingError = BankError(code: code, message: message)
        var response = response
        response.error = error
        return response
    }
}

extension HTTPTransportError {
    /// The domain error: the one `BankErrorInterceptor` mapped, else a transport-level one.
    var bankError: BankError {
        (underlyingError as? BankError) ?? .transport(code, message: message)
    }
}

// MARK: - A typed client on top of the transport

struct Account: Decodable, Sendable {
    let id: String
    let balance: Int  // cents
}

struct Transfer: Decodable, Sendable {
    let id: String
    let status: String
}

/// The app's API client: plain synchronous functions that return values or throw `BankError`.
/// It knows nothing about where the transport sends requests, so tests give it a transport over
/// a `StubEngine`.
struct BankClient: Sendable {
    let transport: HTTPTransport
    let base: HTTPRequest

    func account(_ id: String) throws(BankError) -> Account {
        try send(HTTPRequest(endpoint: "/accounts/\(id)", base: base))
    }

    func transfer(from: String, to: String, cents: Int) throws(BankError) -> Transfer {
        try send(HTTPRequest(httpMethod: .post, endpoint: "/transfers", base: base)
            .with(parameters: ["from": from, "to": to, "amount": cents], encoding: .json))
    }

    private func send<T: Decodable>(_ request: HTTPRequest) throws(BankError) -> T {
        switch transport.send(request: request) {
        case .success(let response):
            do {
                return try response.decode(T.self)
            } catch {
                throw .transport(.badResponse, message: "Undecodable \(T.self): \(error)")
            }
        case .failure(let error):
            throw error.bankError
        }
    }
}

// MARK: - Token refresh on 401

/// Fetches a new access token when the API answers 401; `HTTPTransportRetrier` runs it once for
/// all threads that failed together, then sends their requests again (with the new token, since
/// the bearer interceptor runs again on a retry).
struct TokenRefresher: HTTPTransportRetrierDelegate {
    let tokens: TokenStore
    let tokenEndpoint: String

    func refresh() throws {
        // A plain transport: the refresh call must not carry the stale token or be retried.
        let request = HTTPRequest(httpMethod: .post, endpoint: tokenEndpoint)
            .with(parameters: ["grant_type": "client_credentials", "client_id": "middleware-example"], encoding: .form)
        let response = try HTTPTransport().send(request: request).get()
        guard let token = try response.getJSONDictionary()?["access_token"] as? String else {
            throw HTTPTransportError(code: .badResponse, message: "No access_token in the token response")
        }
        tokens.replace(with: token)
    }
}

// MARK: - The fake bank (a local server)

enum FakeBank {
    /// The token the bank accepts; clients start with an expired one and must refresh.
    static let validToken = "t-fresh-42"

    static func start() throws -> ExampleServer {
        let balances = Ledger(["acc-1": 100_00, "acc-2": 5_00, "acc-frozen": 1_000_00])
        return try ExampleServer { request in
            var response = route(request, balances: balances)
            if let id = request.header("X-Request-ID") { response.headers.append(("X-Request-ID", id)) }
            return response
        }
    }

    static func error(_ code: String, _ message: String, status: Int) -> ExampleServer.Response {
        .json(["error": ["code": code, "message": message]], status: status)
    }

    static func route(_ request: ExampleServer.Request, balances: Ledger) -> ExampleServer.Response {
        if request.method == "POST", request.path == "/oauth/token" {
            guard String(decoding: request.body, as: UTF8.self).contains("grant_type=client_credentials") else {
                return error("invalid_grant", "Unsupported grant", status: 400)
            }
            return .json(["access_token": validToken, "token_type": "Bearer", "expires_in": 3600])
        }
        guard request.header("Authorization") == "Bearer \(validToken)" else {
            return error("unauthenticated", "Missing or expired access token", status: 401)
        }
        let parts = request.pathComponents
        switch (request.method, parts) {
        case ("GET", let path) where path.count == 2 && path[0] == "accounts":
            guard let balance = balances.withLock({ $0[path[1]] }) else {
                return error("account_not_found", "No account \(path[1])", status: 404)
            }
            return .json(["id": path[1], "balance": balance])
        case ("POST", ["transfers"]):
            guard let body = request.json, let from = body["from"] as? String, let to = body["to"] as? String,
                  let amount = body["amount"] as? Int, amount > 0 else {
                return error("invalid_request", "from, to and a positive amount are required", status: 400)
            }
            return balances.withLock { balances -> ExampleServer.Response in
                guard let available = balances[from] else { return error("account_not_found", "No account \(from)", status: 404) }
                guard balances[to] != nil else { return error("account_not_found", "No account \(to)", status: 404) }
                if from == "acc-frozen" { return error("account_frozen", "Account \(from) is frozen", status: 409) }
                guard available >= amount else {
                    return error("insufficient_funds", "Balance \(available) is less than \(amount)", status: 422)
                }
                balances[from] = available - amount
                balances[to, default: 0] += amount
                return .json(["id": "tr-\(UUID().uuidString.prefix(8))", "status": "completed"], status: 201)
            }
        default:
            return error("not_found", "No route \(request.method) \(request.path)", status: 404)
        }
    }
}

/// The bank's balances in cents, by account id, behind a lock (the server serves each
/// connection on its own thread).
final class Ledger: Sendable {
    private let balances: Mutex<[String: Int]>

    init(_ balances: [String: Int]) { self.balances = Mutex(balances) }

    func withLock<Result: Sendable>(_ body: (inout [String: Int]) -> Result) -> Result {
        balances.withLock { body(&$0) }
    }
}
