import Foundation

/// What the library hides wherever it shows a request or response (the log interceptors,
/// `curlCommand`, recordings, error messages, cache files): the one rule set of secrets. Secret headers, the user info of URLs (a password, or a
/// user name standing alone, which is usually a token), secret query and path parameters
/// (`;jsessionid=…`) of every URL (inside header values and text too, relative ones included),
/// and secret fields of JSON and form bodies. Hidden values read `<redacted>`. A body that cannot
/// be read field by field (too large to parse, not valid JSON, binary data other than media) is
/// left out whole (see `redactBody(_:contentType:)`).
///
/// Names match ignoring case and the separators `-`, `_`, `.` and space, so `accessToken`,
/// `access_token` and `ACCESS-TOKEN` are one name.
///
/// ```swift
/// let redaction = LogRedaction(headers: LogRedaction.defaultHeaders.union(["X-Session"]))
/// print(redaction.redactedURL(request.url))
/// print(redaction.redactedText("moved to /next?token=abc"))   // moved to /next?token=<redacted>
/// ```
public struct LogRedaction: Sendable, Hashable {
    /// What replaces a hidden value.
    public static let placeholder = "<redacted>"
    /// Headers hidden by default: the session's default credential headers
    /// (`Session.Configuration.defaultCredentialHeaders`), `Cookie` and `Set-Cookie`.
    public static let defaultHeaders: Set<String> =
        Set(Session.Configuration.defaultCredentialHeaders).union(["Cookie", "Set-Cookie"])
    /// Query parameters hidden by default (also hidden as form fields, and as path parameters:
    /// `/app;jsessionid=…`): every default body field (a password in a URL is still a password)
    /// and the names of URL credentials. `Signature` is that of CloudFront and older AWS signed URLs.
    public static let defaultQueryParameters: Set<String> = defaultBodyFields.union([
        "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "sig", "key", "code", "auth",
        "session", "jwt", "bearer", "Signature", "jsessionid",
    ])
    /// JSON, form and multipart fields hidden by default.
    public static let defaultBodyFields: Set<String> = [
        "password", "passwd", "pass", "pwd", "new_password", "old_password", "current_password", "token", "access_token",
        "refresh_token", "id_token", "secret", "client_secret", "api_key", "private_key", "otp", "pin", "cvv", "cvc",
    ]

    /// Hides the defaults.
    public static let `default` = LogRedaction()
    /// Hides nothing.
    public static let disabled = LogRedaction(isEnabled: false)

    /// `false` shows everything as it is.
    public let isEnabled: Bool
    /// Hidden header names, normalised (see `normalizedName(_:)`).
    public let headers: Set<String>
    /// Hidden query parameter names, normalised.
    public let queryParameters: Set<String>
    /// Hidden body field names, normalised: keys of JSON objects at any depth and names of
    /// `application/x-www-form-urlencoded` fields.
    public let bodyFields: Set<String>
    /// The names hidden as form and multipart fields: query parameters and body fields.
    let pairNames: Set<String>

    /// A redaction of the given names (matched ignoring case and separators).
    public init(
        isEnabled: Bool = true,
        headers: Set<String> = LogRedaction.defaultHeaders,
        queryParameters: Set<String> = LogRedaction.defaultQueryParameters,
        bodyFields: Set<String> = LogRedaction.defaultBodyFields
    ) {
        self.isEnabled = isEnabled
        self.headers = Set(headers.map(Self.normalizedName))
        self.queryParameters = Set(queryParameters.map(Self.normalizedName))
        self.bodyFields = Set(bodyFields.map(Self.normalizedName))
        pairNames = self.queryParameters.union(self.bodyFields)
    }

    /// This redaction, hiding these names too (e.g. `.default.hiding(headers: ["X-CSRF-Token"])`).
    public func hiding(headers: Set<String> = [], queryParameters: Set<String> = [],
                       bodyFields: Set<String> = []) -> LogRedaction {
        LogRedaction(isEnabled: isEnabled, headers: self.headers.union(headers),
                     queryParameters: self.queryParameters.union(queryParameters), bodyFields: self.bodyFields.union(bodyFields))
    }

    /// The form in which names are compared: lower-cased, without `-`, `_`, `.` and spaces
    /// (`X-Amz-Signature` → `xamzsignature`, `accessToken` → `accesstoken`).
    public static func normalizedName(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars where !Self.nameSeparators.contains(scalar) {
            scalars.append(scalar)
        }
        return String(scalars).lowercased()
    }

    private static let nameSeparators: Set<Unicode.Scalar> = ["-", "_", ".", " "]

    /// `true` when the value of header `name` is hidden.
    public func hidesHeader(_ name: String) -> Bool {
        isEnabled && headers.contains(Self.normalizedName(name))
    }

    /// The value to show for header `name`: hidden entirely for a secret header, otherwise
    /// with the secrets of every URL in it hidden (`Location`, `Link`, `Refresh`, …).
    public func headerValue(_ value: String, name: String) -> String {
        hidesHeader(name) ? Self.placeholder : redactedText(value)
    }

    /// The URL to show: its user info and secret query (and fragment) values hidden.
    public func redactedURL(_ url: URL) -> String {
        redactedText(url.absoluteString)
    }

    /// The URL text to show: its user info and secret query (and fragment) values hidden.
    public func redactedURL(_ text: String) -> String {
        redactedText(text)
    }

    /// `text` with the secrets of every URL in it hidden: user info after `scheme://`, and the
    /// secret `name=value` pairs after each `?` or `#` (so relative URLs such as
    /// `/next?token=abc` are covered too).
    public func redactedText(_ text: String) -> String {
        guard isEnabled, !queryParameters.isEmpty || text.utf8.contains(UInt8(ascii: "@")) else { return text }
        return URLTextRedactor(secretNames: queryParameters).redact(text)
    }

    /// `true` when the value of a body or form field named `name` is hidden.
    public func hidesField(_ name: String) -> Bool {
        guard isEnabled else { return false }
        return pairNames.contains(Self.normalizedName(name))
    }
}
