/// The header lines that go on the wire for a request: one rule, used by the engine to build
/// what it sends and by `curlCommand()` to print it.
///
/// The request's own fields come first, in order (but `Proxy-Authorization`); then the session's `User-Agent` and the
/// `Accept-Encoding` that libcurl decodes, unless the request sets its own; then an empty
/// `Expect:` for a body libcurl would announce with `Expect: 100-continue` (`turnsOffExpect`)
/// when the request sets no `Expect` of its own, so libcurl never waits for a `100 Continue` (a
/// second round trip, and a one-second stall with servers that do not answer it).
enum WireHeaders {
    /// The fields to send, in order.
    static func fields(headers: HTTPHeaders, turnsOffExpect: Bool, userAgent: String?,
                       acceptEncoding: String?) -> [HTTPHeaders.Field] {
        // Only `Proxy(username:password:)` authenticates to a proxy: a request's own
        // `Proxy-Authorization` is sent nowhere (through a tunnel it would reach the origin).
        var fields = headers.filter { !$0.name.caseInsensitiveEquals("Proxy-Authorization") }
        if let userAgent, !headers.contains("User-Agent") {
            fields.append(HTTPHeaders.Field(name: "User-Agent", value: userAgent))
        }
        if let acceptEncoding, !acceptEncoding.isEmpty, !headers.contains("Accept-Encoding") {
            fields.append(HTTPHeaders.Field(name: "Accept-Encoding", value: acceptEncoding))
        }
        if turnsOffExpect, !headers.contains("Expect") { fields.append(HTTPHeaders.Field(name: "Expect", value: "")) }
        return fields
    }

    /// A field as libcurl takes it: `Name: value`; `Name;` sends a header with an empty value,
    /// and `Expect:` (empty) removes libcurl's own `Expect: 100-continue`.
    static func line(_ field: HTTPHeaders.Field) -> String {
        guard field.value.isEmpty else { return "\(field.name): \(field.value)" }
        return field.name.caseInsensitiveEquals("Expect") ? "Expect:" : "\(field.name);"
    }

    /// Refuses fields that would change the request's framing: a name that is not an RFC 9110
    /// token (empty, or with a space, `:` or a control character), or a value with CR, LF or NUL
    /// (a line break would start a header of the attacker's choosing; libcurl would cut the
    /// value at a NUL).
    static func validate(_ headers: HTTPHeaders, url: String) throws(HTTPTransportError) {
        guard !headers.isEmpty else { return }
        for field in headers {
            guard HeaderFieldRules.isToken(field.name) else {
                throw HTTPTransportError(
                    code: .encodingFailed,
                    message: "The header name '\(field.name.debugDescription.dropFirst().dropLast())' is not an HTTP token "
                        + "(letters, digits and !#$%&'*+-.^_`|~ only); nothing was sent.",
                    url: url)
            }
            try HeaderFieldRules.check(value: field.value, of: "Header '\(field.name)'", url: url)
        }
    }
}
