import FuzzSupport

@_cdecl("FuzzProxy_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzProxy) }

/// Proxy URLs, `no_proxy` lists and the proxy variables. Input: a flags byte, a proxy URL (or
/// its parts around a planted password), a `no_proxy` list, a host, more list text.
/// Invariants: an accepted proxy URL is `scheme://host[:port]` with no credentials, spaces or
/// controls, and reads as itself; a planted password shows in no URL and no error message; `*`
/// covers every host; a list covering a host still does with more tokens; a list of just the
/// host covers it; the environment's proxy never comes from `HTTP_PROXY` (upper case), is the
/// variable's value, and is nil for a covered host.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProxy(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    checkProxyURL(flags: flags, input: &input)
    let list = input.text(), host = input.text(), more = input.text()
    checkNoProxy(list: list, host: host, more: more)
    checkEnvironment(flags: flags, list: list, host: host, more: more)
    return 0
}

/// An accepted proxy URL has no credentials, spaces or controls and reads as itself; a planted
/// password shows in no URL and no error message.
private func checkProxyURL(flags: UInt8, input: inout FuzzInput) {
    let secret = "Pl4ntedProxyPw"
    var text = input.text()
    let planted = flags & 1 != 0
    if planted {
        // Every scheme, an unsupported one, none before `://`, and no `://` at all.
        let prefixes = ["http://", "https://", "socks5://", "socks5h://", "ftp://", "://", ""]
        text = prefixes[Int(flags >> 1) % prefixes.count] + "user:" + secret + "@" + text
    }
    switch Library.proxy(text) {
    case .accepted(let url, _, _):
        Invariant.check(!url.contains("@") && !url.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F },
                        "proxy URL \(Invariant.show(url)) from \(Invariant.show(text))")
        Invariant.check(!planted || !url.contains(secret), "the password in the URL \(Invariant.show(url))")
        if case .accepted(let again, let username, let password) = Library.proxy(url) {
            Invariant.check(again == url && username == nil && password == nil,
                            "\(Invariant.show(url)) reads as \(Invariant.show(again))")
        } else {
            Invariant.fail("\(Invariant.show(url)) from \(Invariant.show(text)) is refused")
        }
    case .refused(let message):
        if planted, text.components(separatedBy: secret).count == 2 {
            Invariant.check(!message.contains(secret), "the password in the message \(Invariant.show(message))")
        }
    }
}

/// `*` covers every host; a list covering a host still does with more tokens; a list of just
/// the host covers it.
private func checkNoProxy(list: String, host: String, more: String) {
    let covered = Library.noProxyCovers(list, host: host)
    Invariant.check(Library.noProxyCovers("*", host: host), "* does not cover \(Invariant.show(host))")
    // A whole list of `*` is special (every host); `*` as one token of several is not (libcurl).
    if covered, list != "*" {
        Invariant.check(Library.noProxyCovers(list + "," + more, host: host) && Library.noProxyCovers(more + "," + list, host: host),
                        "\(Invariant.show(list)) covers \(Invariant.show(host)), not with \(Invariant.show(more)) added")
    }
    let plainHost = !host.isEmpty && host.utf8.allSatisfy { byte in
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
    } && !host.hasPrefix(".") && !host.hasSuffix(".")
    if plainHost {
        Invariant.check(Library.noProxyCovers(host, host: host), "\(Invariant.show(host)) does not cover itself")
    }
    // A leading dot belongs to names; libcurl compares address tokens as they are.
    if plainHost, !HostRules.isIPAddress(host) {
        Invariant.check(Library.noProxyCovers("." + host.uppercased(), host: host), ".\(host.uppercased()) does not cover \(host)")
    }
}

/// The environment's proxy never comes from `HTTP_PROXY` (upper case), is the variable's value,
/// and is nil for a covered host.
private func checkEnvironment(flags: UInt8, list: String, host: String, more: String) {
    let names = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]
    var environment: [String: String] = [:]
    for (index, name) in names.enumerated() where flags & (1 << (index % 8)) != 0 {
        environment[name] = index % 2 == 0 ? more : list
    }
    for scheme in ["http", "https", "HTTP", "ftp"] {
        guard let chosen = Library.environmentProxy(environment, scheme: scheme, host: host) else { continue }
        Invariant.check(chosen.variable != "HTTP_PROXY", "HTTP_PROXY used for \(scheme)")
        Invariant.check(environment[chosen.variable] == chosen.url && !chosen.url.isEmpty, "proxy \(Invariant.show(chosen))")
        let exemptions = environment["no_proxy"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["NO_PROXY"] ?? ""
        Invariant.check(exemptions.isEmpty || !Library.noProxyCovers(exemptions, host: host),
                        "a proxy for \(Invariant.show(host)), which \(Invariant.show(exemptions)) covers")
    }
}
