import Foundation
import FuzzSupport

@_cdecl("FuzzRedirect_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzRedirect) }

/// Redirect resolution: an arbitrary `Location` against an arbitrary base URL. Input: a flags
/// byte (base scheme, status, method, insecure redirects allowed, a password planted in the
/// Location), the base URL after `scheme://`, the Location. Invariants: a redirect response
/// with a non-empty Location is followed or refused, never ignored; a followed one goes to
/// http(s) with a non-empty host that reads the same when its text is parsed again;
/// https → http is refused unless allowed; a refusal never shows the Location's password.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedirect(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let base = FuzzURL.make(scheme: flags & 1 == 0 ? "https" : "http", rest: input.text())
    let status = Library.redirectStatuses[Int(flags >> 1) % Library.redirectStatuses.count]
    let method = ["GET", "POST", "HEAD", "PUT"][Int(flags >> 4) & 3]
    let allowsInsecure = flags & 0x40 != 0
    let secret = "Pl4ntedPassw0rd"
    var location = input.text()
    if flags & 0x80 != 0 { location = "http://user:\(secret)@" + location }

    let outcome = Library.redirect(from: base, method: method, status: status, location: location, allowsInsecure: allowsInsecure)
    let shown = "\(Invariant.show(location)) from \(base.absoluteString)"
    switch outcome {
    case .notFollowed:
        Invariant.check(location.isEmpty, "redirect ignored: \(shown)")
    case .next(let url, _):
        let scheme = url.scheme?.lowercased()
        Invariant.check(scheme == "http" || scheme == "https", "redirect to scheme \(Invariant.show(scheme)): \(shown)")
        Invariant.check(!(url.host ?? "").isEmpty, "redirect to no host (\(url.absoluteString)): \(shown)")
        Invariant.check(allowsInsecure || base.scheme?.lowercased() != "https" || scheme == "https",
                        "https → http followed: \(shown)")
        let reread = URL(string: url.absoluteString)
        Invariant.check(reread?.host == url.host && reread?.scheme == url.scheme,
                        "\(url.absoluteString) reads as host \(Invariant.show(reread?.host)) when parsed again: \(shown)")
    case .refused(_, let message):
        // Only where the planted password is the one copy of it in the Location.
        if flags & 0x80 != 0, location.components(separatedBy: secret).count == 2 {
            Invariant.check(!message.contains(secret), "the Location's password shown in \(Invariant.show(message))")
        }
    }
    return 0
}
