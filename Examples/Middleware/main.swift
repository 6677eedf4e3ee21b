// Middleware: writing your own interceptors, and testing code without a network.
//
//   swift run Middleware
//
// 1. auth header injection, with a token refresh on 401 (HTTPTransportRetrier)
// 2. request ids
// 3. timing from the exchange's metrics
// 4. mapping an API's error body to a domain error enum, behind a typed client
// 5. a guard that refuses requests (a throwing interceptor)
// 6. the order interceptors run in
// 7. fault injection with a response interceptor
// 8. StubEngine: the same client code against canned responses, no server at all
// 9. a network step (HTTPSendStep): sees each request on the wire, answers one itself
//
// Sections 1–7 talk to a fake bank API this program starts on 127.0.0.1.
import ExampleServer
import Foundation
import HTTPTransport

let checks = ExampleChecks(name: "Middleware")
let bank = try FakeBank.start()
print("Bank API: \(bank.baseURL)\n")

// MARK: - The transport and its middleware

let tokens = TokenStore(token: "t-expired")  // stale on purpose: the first call gets 401
let timings = TimingRecorder()
let refresher = HTTPTransportRetrier(delegate: TokenRefresher(tokens: tokens, tokenEndpoint: bank.baseURL + "/oauth/token"))

let transport = HTTPTransport(
    requestInterceptors: [
        RequestIDInterceptor(prefix: "mw"),
        BearerTokenInterceptor(tokens: tokens),
    ],
    responseInterceptors: [
        timings,
        BankErrorInterceptor(),  // replaces ClarifyErrorInterceptor: this API has its own error shape
    ],
    retrier: refresher
)
let client = BankClient(transport: transport, base: HTTPRequest(endpoint: bank.baseURL, timeout: 10))

// MARK: - 1. Auth header injection + refresh on 401

print("1. Bearer token, refreshed on 401")
do {
    let account = try client.account("acc-1")
    print("   acc-1 balance \(account.balance) cents, token now \(tokens.current)")
    checks.expect(account.balance == 100_00, "the request succeeded after one refresh")
    checks.expect(refresher.refreshCount == 1 && tokens.current == FakeBank.validToken, "the token was refreshed once")
} catch {
    checks.fail("account acc-1: \(error)")
}

// Eight threads at once with a stale token: still one refresh.
tokens.replace(with: "t-expired-again")
let parallel = Counter()
DispatchQueue.concurrentPerform(iterations: 8) { _ in
    if (try? client.account("acc-2")) != nil { parallel.next() }
}
print("   8 parallel calls with a stale token: \(parallel.value) succeeded, \(refresher.refreshCount - 1) more refresh")
checks.expect(parallel.value == 8 && refresher.refreshCount == 2, "8 threads that got 401 together shared a single refresh")

// MARK: - 2. Request ids

print("2. Request ids")
let idResult = transport.send(request: HTTPRequest(endpoint: bank.baseURL + "/accounts/acc-1"))
if let response = idResult.value {
    let sent = response.request.value(forHTTPHeaderField: "X-Request-ID") ?? "-"
    print("   sent X-Request-ID \(sent), the server echoed \(response.header(named: "X-Request-ID") ?? "-")")
    checks.expect(sent.hasPrefix("mw-") && response.header(named: "X-Request-ID") == sent, "the request id made the round trip")
    // A request that brings its own id keeps it.
    let own = transport.send(request: HTTPRequest(endpoint: bank.baseURL + "/accounts/acc-1").with(header: "X-Request-ID", value: "job-7"))
    checks.expect(own.value?.header(named: "X-Request-ID") == "job-7", "a request's own X-Request-ID is kept")
} else {
    checks.fail("request id call: \(idResult.error!)")
}

// MARK: - 3. Timing

print("3. Timing (libcurl's metrics, collected by a response interceptor)")
print(timings.report())
checks.expect(timings.all.count >= 10 && timings.all.allSatisfy { $0.total > 0 }, "every exchange was timed")
checks.expect(timings.all.contains { $0.reused }, "the shared transport reused keep-alive connections")

// MARK: - 4. Error bodies → a domain enum

print("4. Error bodies mapped to BankError")
func attempt(_ title: String, expecting expected: (BankError) -> Bool, _ body: () throws -> Void) {
    do {
        try body()
        checks.fail("\(title): succeeded, expected an error")
    } catch let error as BankError {  // BankClient throws nothing else (typed throws)
        print("   \(title): \(error)")
        checks.expect(expected(error), "\(title) → the expected BankError")
    } catch {
        checks.fail("\(title): \(error)")
    }
}
attempt("overdraw acc-2", expecting: { if case .insufficientFunds = $0 { true } else { false } }) {
    _ = try client.transfer(from: "acc-2", to: "acc-1", cents: 250_00)
}
attempt("from a frozen account", expecting: { if case .accountFrozen = $0 { true } else { false } }) {
    _ = try client.transfer(from: "acc-frozen", to: "acc-1", cents: 1_00)
}
attempt("unknown account", expecting: { $0 == .accountNotFound(message: "No account acc-404") }) {
    _ = try client.account("acc-404")
}
let unreachable = BankClient(transport: transport, base: HTTPRequest(endpoint: "http://127.0.0.1:1", timeout: 2))
attempt("nobody listening", expecting: { if case .transport(.cannotConnect, _) = $0 { true } else { false } }) {
    _ = try unreachable.account("acc-1")
}
do {
    let transfer = try client.transfer(from: "acc-1", to: "acc-2", cents: 25_00)
    print("   a valid transfer: \(transfer.status)")
    checks.expect(transfer.status == "completed", "a valid transfer completes")
} catch {
    checks.fail("transfer: \(error)")
}
// The raw error keeps everything for logging: status, body, the mapped code and message.
if let raw = transport.send(request: HTTPRequest(endpoint: bank.baseURL + "/accounts/nope")).error {
    print("   raw: \(raw.httpStatusCode?.rawValue ?? 0) \(raw.responseBodyErrorCode ?? "-") — \(raw.message)")
    checks.expect(raw.responseBodyErrorCode == "account_not_found", "the raw error carries the API's code")
}

// MARK: - 5. A guard that throws

print("5. A throwing request interceptor")
let guarded = HTTPTransport(requestInterceptors: [HostAllowListInterceptor(allowedHosts: ["127.0.0.1"])])
let refused = guarded.send(request: HTTPRequest(endpoint: "http://example.invalid/accounts"))
print("   \(refused.error.map { "\($0.code): \($0.message)" } ?? "sent?!")")
checks.expect(refused.error?.code == .interceptorFailed, "a throwing interceptor fails the send with .interceptorFailed")
checks.expect(refused.error?.underlyingError is HostAllowListInterceptor.NotAllowed, "the thrown error is kept as underlyingError")

// MARK: - 6. Ordering

print("6. The order interceptors run in")
let trace = Trace()
let traced = HTTPTransport(
    session: Session(engine: StubEngine { RawResponse(request: $0, statusCode: .ok) }),  // no network needed
    requestInterceptors: [TraceInterceptor(label: "transport", trace: trace)],
    responseInterceptors: [TraceInterceptor(label: "transport", trace: trace)])
let tracedBase = HTTPRequest(endpoint: "http://api.test",
                             requestInterceptors: [TraceInterceptor(label: "base", trace: trace)],
                             responseInterceptors: [TraceInterceptor(label: "base", trace: trace)])
let tracedRequest = HTTPRequest(endpoint: "/ping",
                                requestInterceptors: [TraceInterceptor(label: "request", trace: trace)],
                                responseInterceptors: [TraceInterceptor(label: "request", trace: trace)],
                                base: tracedBase)
_ = traced.send(request: tracedRequest)
print("   " + trace.all.joined(separator: " → "))
checks.expect(trace.all == ["request:request", "request:base", "request:transport",
                            "response:request", "response:base", "response:transport"],
              "the request's own interceptors, then its base's, then the transport's")

// MARK: - 7. Fault injection

print("7. Fault injection with a response interceptor")
let chaos = HTTPRequest(endpoint: bank.baseURL + "/accounts/acc-1")
    .with(interceptors: [FaultInjectionInterceptor(paths: ["/accounts/acc-1"])] as [any HTTPResponseInterceptor])
let injected = transport.send(request: chaos)
print("   \(injected.error.map { "\($0.bankError)" } ?? "no fault?!")")
checks.expect(injected.error?.bankError == .unavailable(message: "Injected fault: down for maintenance"),
              "the request's own response interceptor ran before the transport's error mapping")

// MARK: - 8. StubEngine: no server at all

print("8. StubEngine: the same BankClient against canned responses")
let sent = Trace()  // records what the client sent
let stub = StubEngine { request in
    sent.append("\(request.method.rawValue) \(request.url.path) \(request.value(forHTTPHeaderField: "Authorization") ?? "-") \(request.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? "")")
    func json(_ status: HTTPStatusCode, _ text: String) -> RawResponse {
        RawResponse(request: request, statusCode: status, headers: ["Content-Type": "application/json"], data: Data(text.utf8))
    }
    switch (request.method, request.url.path) {
    case (.get, "/v1/accounts/acc-1"):
        return json(.ok, #"{"id": "acc-1", "balance": 4200}"#)
    case (.post, "/v1/transfers"):
        return json(.unprocessableContent, #"{"error": {"code": "insufficient_funds", "message": "stubbed"}}"#)
    case (.get, "/v1/accounts/slow"):
        // A network fault, as the engine reports it: no status, an error.
        return RawResponse(request: request, error: HTTPTransportError(code: .timeout, message: "stubbed time-out"))
    default:
        return json(.notFound, #"{"error": {"code": "not_found", "message": "no stub"}}"#)
    }
}
let stubTransport = HTTPTransport(
    session: Session(engine: stub),
    requestInterceptors: [BearerTokenInterceptor(tokens: TokenStore(token: "test-token"))],
    responseInterceptors: [BankErrorInterceptor()])
// An address that does not exist: nothing is resolved or connected.
let stubClient = BankClient(transport: stubTransport, base: HTTPRequest(endpoint: "https://bank.invalid/v1"))

let stubbedAccount = try? stubClient.account("acc-1")
checks.expect(stubbedAccount?.balance == 4200, "a canned 200 decodes into an Account")
attempt("stubbed overdraft", expecting: { $0 == .insufficientFunds(message: "stubbed") }) {
    _ = try stubClient.transfer(from: "acc-1", to: "acc-2", cents: 1)
}
attempt("stubbed time-out", expecting: { if case .transport(.timeout, _) = $0 { true } else { false } }) {
    _ = try stubClient.account("slow")
}
print("   the stub saw:")
for line in sent.all { print("     \(line)") }
checks.expect(sent.all.first == "GET /v1/accounts/acc-1 Bearer test-token ", "interceptors ran and the base path was kept")
checks.expect(sent.all.contains(#"POST /v1/transfers Bearer test-token {"amount":1,"from":"acc-1","to":"acc-2"}"#),
              "the transfer's JSON body is what the client should send")

// One request can carry its own session: stub a single endpoint while others use the network.
let health = HTTPRequest(endpoint: "http://status.invalid/health",
                         session: Session(engine: StubEngine { RawResponse(request: $0, statusCode: .ok, data: Data("up".utf8)) }))
checks.expect(transport.send(request: health).value?.getString() == "up", "a request's own session replaces the transport's")

// MARK: - 9. A network step

print("9. A network step: every exchange on the wire, and one answered by the step")
let wireLog = WireLog()
var stepped = Session.Configuration()
stepped.networkSteps = [WireLogStep(log: wireLog)]
tokens.replace(with: "t-expired-once-more")
let steppedClient = BankClient(
    transport: HTTPTransport(session: Session(configuration: stepped), requestInterceptors: [BearerTokenInterceptor(tokens: tokens)],
                             responseInterceptors: [BankErrorInterceptor()], retrier: refresher),
    base: HTTPRequest(endpoint: bank.baseURL, timeout: 10))
let steppedAccount = try? steppedClient.account("acc-2")
let status = HTTPTransport(session: Session(configuration: stepped)).send(request: HTTPRequest(endpoint: bank.baseURL + "/status"))
for line in wireLog.all { print("   \(line)") }
checks.expect(steppedAccount != nil, "the send through the step succeeded")
checks.expect(wireLog.all.prefix(2) == ["GET /accounts/acc-2 → 401", "GET /accounts/acc-2 → 200"],
              "the step saw the 401 and the request retried after the token refresh")
checks.expect(status.value?.getString() == "up", "the step answered /status without the network")

bank.stop()
checks.finish()
