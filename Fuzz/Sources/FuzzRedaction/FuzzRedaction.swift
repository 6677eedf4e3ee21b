import Foundation
import FuzzSupport

@_cdecl("FuzzRedaction_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzRedaction) }

/// Redaction of URLs, text, headers and bodies. Input: a flags byte (which secret name, which
/// separator after the value, where to plant it), a prefix, a suffix. Invariants: redacting is
/// idempotent; a secret value planted under a secret name (as a query parameter, after an apostrophe too, as a fragment parameter, as
/// a `;jsessionid=` path parameter, as a URL's password, as a form field, as a JSON member, in a secret header) never survives.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedaction(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let prefix = input.text(), suffix = input.text()
    let plain = prefix + suffix

    for text in [plain, prefix] {
        let once = Library.redactedText(text), twice = Library.redactedText(once)
        Invariant.check(twice == once, "redacting \(Invariant.show(text)) gives \(Invariant.show(once)), then \(Invariant.show(twice))")
        let url = Library.redactedURL(text), urlTwice = Library.redactedURL(url)
        Invariant.check(urlTwice == url, "redacting URL \(Invariant.show(text)) gives \(Invariant.show(url)), then \(Invariant.show(urlTwice))")
    }

    // The fuzzer may learn the secret and write it elsewhere; then only its planted copy counts.
    guard !plain.contains(marker) else { return 0 }
    let name = secretNames[Int(flags) % secretNames.count]
    let separator = separators[Int(flags >> 4) % separators.count]
    let query = prefix + "?" + name + "=" + secret + separator + suffix
    checkHidden(Library.redactedText(query), "query parameter in \(Invariant.show(query))")
    let afterApostrophe = prefix + "?q=it's&" + name + "=" + secret + separator + suffix
    checkHidden(Library.redactedText(afterApostrophe), "query parameter after an apostrophe in \(Invariant.show(afterApostrophe))")
    let fragment = prefix + "#" + name + "=" + secret + separator + suffix
    checkHidden(Library.redactedText(fragment), "fragment parameter in \(Invariant.show(fragment))")
    let pathParameter = prefix + "/p;jsessionid=" + secret + separator + suffix
    checkHidden(Library.redactedText(pathParameter), "path parameter in \(Invariant.show(pathParameter))")
    let userInfo = prefix + "https://user:" + secret + "@" + suffix
    checkHidden(Library.redactedText(userInfo), "password in \(Invariant.show(userInfo))")
    // A password holding what splits pairs, in a URL inside a query.
    let nestedUserInfo = prefix + "?q=it's&next=https://user:" + secret + "=;&@" + suffix
    checkHidden(Library.redactedText(nestedUserInfo), "password in a query in \(Invariant.show(nestedUserInfo))")
    let form = prefix + "&" + name + "=" + secret + "&" + suffix
    let redactedForm = Library.redactedBody(Data(form.utf8), contentType: "application/x-www-form-urlencoded")
    checkHidden(String(decoding: redactedForm, as: UTF8.self), "form field in \(Invariant.show(form))")
    var members: [String: Any] = [prefix: suffix]  // assigned one by one: `prefix` may be one of the names
    members["password"] = secret
    members["nested"] = ["token": secret]
    if let json = try? JSONSerialization.data(withJSONObject: members) {
        checkHidden(String(decoding: Library.redactedBody(json, contentType: "application/json"), as: UTF8.self),
                    "JSON member in \(String(decoding: json, as: UTF8.self))")
    }
    checkHidden(Library.headerValue(prefix + secret, name: "Authorization"), "Authorization header")
    return 0
}

private let marker = "Pl4nted"
private let secret = "Pl4ntedSecretValue"

/// Default secret names, in the spellings the redaction promises to match.
private let secretNames = [
    "token", "access_token", "Access-Token", "ACCESSTOKEN", "password", "api_key", "X-Amz-Signature",
    "to%6Ben", "user[token]", "a%5Bclient_secret%5D", "sig", "code",
]
/// What may end a value: a pair separator, the end of a URL in text, or nothing at all.
private let separators = ["", "&", ";", " ", "#", "\"", "\n", "'", ">", "&x=1"]

private func checkHidden(_ output: String, _ what: String) {
    Invariant.check(!output.contains(secret), "the secret survives as \(what): \(Invariant.show(output))")
}
