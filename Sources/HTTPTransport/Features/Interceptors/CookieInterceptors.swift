import Foundation

/// Adds the cookies a provider holds for each request's URL to its `Cookie` header (after any
/// cookies the request already carries). Runs on every redirect hop, so each hop gets the
/// cookies of its own URL.
///
/// ```swift
/// let cookies = CookieStorage()
/// let transport = HTTPTransport(requestInterceptors: [AddCookieInterceptor(cookieProvider: cookies)],
///                               responseInterceptors: [ReceivedCookieInterceptor(cookieStorage: cookies)])
/// ```
public struct AddCookieInterceptor: HTTPRequestInterceptor {
    /// Where the cookies come from.
    public let cookieProvider: any CookieProviding

    /// An interceptor sending the provider's cookies.
    public init(cookieProvider: any CookieProviding) {
        self.cookieProvider = cookieProvider
    }

    public func intercept(request: RawRequest) throws -> RawRequest {
        // A provider's cookie that would change the header's shape (a `;`, a control character)
        // is left out, as `CookieStorage` never stores one.
        let cookies = cookieProvider.cookies(for: request.url)
            .filter { CookieParser.isSendable(name: $0.name, value: $0.value) }
        guard !cookies.isEmpty else { return request }
        var request = request
        request.setValue(CookieHeader.appending(cookies, to: request.value(forHTTPHeaderField: "Cookie")),
                         forHTTPHeaderField: "Cookie")
        return request
    }
}

/// Stores every `Set-Cookie` of each response (redirect hops included) for the URL that was
/// requested.
public struct ReceivedCookieInterceptor: HTTPResponseInterceptor {
    /// Where received cookies go.
    public let cookieStorage: any CookieStoring

    /// An interceptor storing received cookies.
    public init(cookieStorage: any CookieStoring) {
        self.cookieStorage = cookieStorage
    }

    public func intercept(response: RawResponse) -> RawResponse {
        let values = response.headers.values("Set-Cookie")
        if !values.isEmpty { cookieStorage.store(setCookieHeaders: values, for: response.request.url) }
        return response
    }
}
