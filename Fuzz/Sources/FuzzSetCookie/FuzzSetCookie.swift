import Foundation
import FuzzSupport

@_cdecl("FuzzSetCookie_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzSetCookie) }

/// `Set-Cookie` values from a URL, parsed and stored, then the cookies for a second URL.
/// Input: a scheme byte, the URL after `scheme://`, the request URL's, then header values.
/// Invariants: a cookie's domain is its URL's host or a parent of it (exactly the host when
/// host-only); a stored domain cookie's domain is never a public suffix; names and values hold
/// no control character or `;` byte; paths start with `/`; cookies sent to a URL domain- and
/// path-match it; the Cookie header has no CR, LF or NUL.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSetCookie(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let schemes = ["http", "https", "HTTPS", "wss"]
    let origin = FuzzURL.make(scheme: schemes[input.choice(schemes.count)], rest: input.text())
    let target = FuzzURL.make(scheme: schemes[input.choice(schemes.count)], rest: input.text())
    let headers = input.texts()
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    if let host = origin.host {
        let host = HostRules.canonical(host)
        for header in headers {
            guard let cookie = Library.parse(header, from: origin, now: now) else { continue }
            checkWellFormed(cookie, header: header)
            Invariant.check(HostRules.isAtOrBelow(host, cookie.domain),
                            "parsed cookie domain \(Invariant.show(cookie.domain)) does not domain-match \(Invariant.show(host))")
            Invariant.check(!cookie.isHostOnly || cookie.domain == host, "host-only cookie for \(cookie.domain) from \(host)")
        }
    }

    let store = Library.makeStore(now: now)
    Library.store(headers, from: origin, in: store)
    let stored = Library.stored(in: store)
    if !stored.isEmpty {
        let host = HostRules.canonical(origin.host ?? "")
        for cookie in stored {
            checkWellFormed(cookie, header: nil)
            Invariant.check(HostRules.isAtOrBelow(host, cookie.domain),
                            "stored cookie domain \(Invariant.show(cookie.domain)) does not domain-match \(Invariant.show(host))")
            Invariant.check(cookie.isHostOnly || !Library.isPublicSuffix(cookie.domain),
                            "stored domain cookie for the public suffix \(Invariant.show(cookie.domain))")
            Invariant.check(!cookie.isHostOnly || cookie.domain == host, "host-only cookie for \(cookie.domain) from \(host)")
        }
    }

    let sent = Library.cookiesToSend(to: target, from: store)
    let targetHost = HostRules.canonical(target.host ?? "")
    for cookie in sent {
        Invariant.check(HostRules.isAtOrBelow(targetHost, cookie.domain),
                        "cookie for \(Invariant.show(cookie.domain)) sent to \(Invariant.show(targetHost))")
        Invariant.check(!cookie.isHostOnly || cookie.domain == targetHost,
                        "host-only cookie for \(Invariant.show(cookie.domain)) sent to \(Invariant.show(targetHost))")
    }
    if let header = Library.cookieHeader(for: target, from: store) {
        Invariant.check(!header.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 },
                        "Cookie header with CR, LF or NUL: \(Invariant.show(header))")
    }
    return 0
}

private let semicolon = UInt8(ascii: ";")

private func checkWellFormed(_ cookie: Library.Cookie, header: String?) {
    let source = header.map { " from \(Invariant.show($0))" } ?? ""
    Invariant.check(!cookie.name.isEmpty, "empty cookie name\(source)")
    Invariant.check(!HostRules.hasControlOtherThanTab(cookie.name),
                    "control character in name \(Invariant.show(cookie.name))\(source)")
    Invariant.check(!HostRules.hasControlOtherThanTab(cookie.value),
                    "control character in value \(Invariant.show(cookie.value))\(source)")
    // The byte, not the Character: U+037E GREEK QUESTION MARK is canonically equivalent to `;`
    // (so `contains(";")` finds it), yet it goes on the wire as CD BE and splits nothing.
    Invariant.check(!cookie.name.utf8.contains(semicolon) && !cookie.value.utf8.contains(semicolon), "';' in a cookie\(source)")
    Invariant.check(cookie.path.hasPrefix("/"), "path \(Invariant.show(cookie.path))\(source)")
    Invariant.check(!cookie.domain.isEmpty, "empty domain\(source)")
}
