import Foundation
import FuzzSupport

@_cdecl("FuzzCookieFile_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzCookieFile) }

/// The Netscape cookie file, both ways. Input: a mode byte, then either a file's text (mode
/// even) or cookies set by hand (name, value, domain, path, a flags byte and eight expiry
/// bytes each). Invariants: what is loaded is well-formed (a domain, a path starting with `/`,
/// name and value sendable); loaded cookies written and loaded again are the same cookies; the
/// persistent cookies of a store, saved and loaded, are the same cookies.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCookieFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    if input.byte() & 1 == 0 {
        let text = String(decoding: input.rest(), as: UTF8.self)
        let loaded = Library.cookies(inFileText: text)
        for cookie in loaded {
            Invariant.check(!cookie.domain.isEmpty && cookie.path.hasPrefix("/") && !cookie.name.isEmpty,
                            "malformed cookie loaded: \(Invariant.show(cookie))")
            Invariant.check(!HostRules.hasControlOtherThanTab(cookie.name)
                                && !HostRules.hasControlOtherThanTab(cookie.value)
                                && !cookie.name.utf8.contains(UInt8(ascii: ";")) && !cookie.value.utf8.contains(UInt8(ascii: ";")),
                            "unsendable cookie loaded: \(Invariant.show(cookie))")
        }
        checkRoundTrip(loaded.filter(isWritable), what: "loaded from \(Invariant.show(text))")
    } else {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let store = Library.makeStore(now: now)
        while !input.isAtEnd {
            let name = input.text(), value = input.text(), domain = input.text(), path = input.text()
            let flags = input.byte()
            let expiry = input.int64()
            // Whole seconds from now on (the file keeps seconds), or none: a session cookie.
            let seconds = 1_700_000_001 + Double(UInt64(bitPattern: expiry) % 300_000_000_000)
            Library.set(Library.Cookie(name: name, value: value, domain: domain, path: path,
                                   expiresDate: flags & 1 == 0 ? Date(timeIntervalSince1970: seconds) : nil,
                                   isSecure: flags & 2 != 0, isHTTPOnly: flags & 4 != 0, sameSite: nil,
                                   isHostOnly: flags & 8 != 0), in: store)
        }
        let saved = Library.savedCookies(of: store)
        checkRoundTrip(saved.filter(isWritable), what: "saved from a store")
    }
    return 0
}

/// The format has no way to hold a tab, CR or LF in a field: such cookies are left out when
/// writing (documented), so they are not compared.
private func isWritable(_ cookie: Library.Cookie) -> Bool {
    ![cookie.name, cookie.value, cookie.domain, cookie.path].contains { field in
        field.utf8.contains { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }
}

private func checkRoundTrip(_ cookies: [Library.Cookie], what: String) {
    let text = Library.fileText(for: cookies)
    let reloaded = Library.cookies(inFileText: text)
    let expected = cookies.map { cookie -> Library.Cookie in
        var cookie = cookie
        cookie.sameSite = nil  // the format has no field for it
        return cookie
    }
    guard reloaded != expected else { return }
    let lost = expected.filter { !reloaded.contains($0) }
    let changed = reloaded.filter { !expected.contains($0) }
    Invariant.fail("cookies \(what) do not survive a save and load; lost \(Invariant.show(lost)), "
        + "read back \(Invariant.show(changed)), file text \(Invariant.show(text))")
}
