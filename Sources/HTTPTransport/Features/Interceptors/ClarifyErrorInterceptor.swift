import Foundation

/// Reads an API's error body (`{"code": 500, "message": "Database error"}`) into the error's
/// `responseBodyErrorCode` and `responseBodyErrorMessage`. The default response interceptor of
/// `HTTPTransport`. Only acts on responses that already carry an error and a JSON object body.
public struct ClarifyErrorInterceptor: HTTPResponseInterceptor {
    /// Keys tried, in order, for the error code.
    public let errorCodeKeys: [String]
    /// Keys tried, in order, for the error message.
    public let errorMessageKeys: [String]

    /// An interceptor looking for the given keys (also one level down, e.g. `{"error": {"code": …}}`).
    public init(errorCodeKeys: [String] = ["code", "error_code"], errorMessageKeys: [String] = ["message", "error_message"]) {
        self.errorCodeKeys = errorCodeKeys
        self.errorMessageKeys = errorMessageKeys
    }

    /// Only failures carry an error body to read.
    public var interceptsSuccesses: Bool { false }

    public func intercept(response: RawResponse) -> RawResponse {
        guard var error = response.error, let data = response.data, !data.isEmpty,
              let first = data.first(where: { !$0.isWhitespace }), first == UInt8(ascii: "{"),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return response }
        let candidates = [json] + json.values.compactMap { $0 as? [String: Any] }
        let code = candidates.lazy.compactMap { Self.text(in: $0, keys: self.errorCodeKeys) }.first
        let message = candidates.lazy.compactMap { Self.text(in: $0, keys: self.errorMessageKeys) }.first
        guard code != nil || message != nil else { return response }
        error.responseBodyErrorCode = code
        error.responseBodyErrorMessage = message
        if let message { error.message += " The server says: \(message)" }
        var response = response
        response.error = error
        return response
    }

    private static func text(in dictionary: [String: Any], keys: [String]) -> String? {
        for key in keys {
            switch dictionary[key] {
            case let string as String: return string
            case let int as Int: return String(int)
            case let double as Double: return String(double)
            case let number as NSNumber: return number.stringValue
            default: continue
            }
        }
        return nil
    }
}

private extension UInt8 {
    var isWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}
