import Foundation
import FuzzSupport

@_cdecl("FuzzEndpoint_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzEndpoint) }

/// Endpoints joined to a base and parsed. Input: the base, the endpoint, a query value.
/// Invariants: a parsed endpoint is http(s) with a non-empty host, and parsing it again (from
/// the cache of parsed endpoints) gives the same URL; an endpoint joined to a base that parses
/// keeps the base's scheme and host; a query appended to a parsed URL is kept, with the URL's
/// host.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEndpoint(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let base = input.text(), endpoint = input.text(), query = input.text()

    let joined = Library.join(endpoint, base: base.isEmpty ? nil : base)
    guard case .success(let url) = Library.parse(joined) else { return 0 }
    let scheme = url.scheme?.lowercased()
    Invariant.check(scheme == "http" || scheme == "https", "\(Invariant.show(joined)) parsed with scheme \(Invariant.show(scheme))")
    Invariant.check(!(url.host ?? "").isEmpty, "\(Invariant.show(joined)) parsed without a host")
    let again = Library.parse(joined)
    Invariant.check((try? again.get()) == url, "parsing \(Invariant.show(joined)) again gives \(Invariant.show(again))")

    if !base.isEmpty, case .success(let baseURL) = Library.parse(base) {
        Invariant.check(url.host?.lowercased() == baseURL.host?.lowercased() && scheme == baseURL.scheme?.lowercased(),
                        "\(Invariant.show(endpoint)) joined to \(Invariant.show(base)) reaches \(url.absoluteString)")
    }

    let encoded = "fuzz=" + Library.queryEscaped(query)
    let appended = Library.appendingQuery(encoded, to: url)
    Invariant.check(appended.host == url.host && appended.absoluteString.contains(encoded),
                    "appending \(Invariant.show(encoded)) to \(url.absoluteString) gives \(appended.absoluteString)")
    return 0
}
