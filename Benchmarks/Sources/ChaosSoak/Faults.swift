import HTTPTransport

/// Which of the chaos server's listeners a request goes to.
enum Listener: String, CaseIterable, Sendable {
    case http, https, tlsAbort = "tls_abort"
}

/// One kind of request the soak sends: the fault the server injects, where, how often, and
/// what the client must make of it.
struct Fault: Sendable {
    enum Expectation: Sendable {
        /// A success whose body names the request's id (never another request's body).
        case success
        /// A failure (a cut, reset or garbled response must never pass as a success).
        case failure
    }

    let name: String
    let listener: Listener
    let weight: Int
    let expectation: Expectation

    var label: String { listener == .http ? name : "\(name) (\(listener.rawValue))" }

    /// The mix: half of the requests succeed when nothing goes wrong, the rest meet a fault.
    static let all: [Fault] = [
        Fault(name: "ok", listener: .http, weight: 20, expectation: .success),
        Fault(name: "ok", listener: .https, weight: 10, expectation: .success),
        Fault(name: "gzip", listener: .http, weight: 6, expectation: .success),
        Fault(name: "gzip", listener: .https, weight: 4, expectation: .success),
        Fault(name: "slowheaders", listener: .http, weight: 5, expectation: .success),
        Fault(name: "slowbody", listener: .https, weight: 5, expectation: .success),
        Fault(name: "status5xx", listener: .http, weight: 6, expectation: .failure),
        Fault(name: "badgzip", listener: .http, weight: 4, expectation: .failure),
        Fault(name: "truncate", listener: .http, weight: 4, expectation: .failure),
        Fault(name: "truncate", listener: .https, weight: 3, expectation: .failure),
        Fault(name: "chunkcut", listener: .http, weight: 4, expectation: .failure),
        Fault(name: "reset", listener: .http, weight: 4, expectation: .failure),
        Fault(name: "reset", listener: .https, weight: 3, expectation: .failure),
        Fault(name: "empty", listener: .http, weight: 4, expectation: .failure),
        Fault(name: "garbage", listener: .http, weight: 3, expectation: .failure),
        Fault(name: "stall", listener: .http, weight: 2, expectation: .failure),
        Fault(name: "stall", listener: .https, weight: 1, expectation: .failure),
        Fault(name: "tlsclose", listener: .https, weight: 4, expectation: .failure),
        Fault(name: "handshake", listener: .tlsAbort, weight: 2, expectation: .failure),
    ]

    static func random(using generator: inout some RandomNumberGenerator) -> Fault {
        var pick = Int.random(in: 0..<all.reduce(0) { $0 + $1.weight }, using: &generator)
        for fault in all {
            if pick < fault.weight { return fault }
            pick -= fault.weight
        }
        return all[0]
    }
}
