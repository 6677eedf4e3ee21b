import Foundation

extension HTTPTransport {
    /// The `curl` command that sends `request` as this transport would: resolved, then passed
    /// through the request interceptors (the request's own, its base's, then the transport's:
    /// they run, so cookies and tokens they add are in it, but nothing is sent), with the
    /// session's `User-Agent` and the header lines the engine sends. Secrets read `<redacted>`
    /// unless `redactingSecrets` is `false`. A `# cannot build request: …` comment when the
    /// request cannot be resolved or an interceptor throws.
    ///
    /// ```swift
    /// print(transport.curlCommand(for: HTTPRequest(endpoint: "https://api.example.com/me")))
    /// ```
    public func curlCommand(for request: some HTTPRequestEnvelope, redactingSecrets: Bool = true) -> String {
        let pipeline = SendPipeline.of(request, on: self)
        do {
            var wire = try request.resolve(endpoints: pipeline.session.parsedEndpoints)
            try SendPipeline.intercept(&wire, with: pipeline.requestInterceptors)
            return wire.curlCommand(redactingSecrets: redactingSecrets, userAgent: pipeline.session.configuration.userAgent)
        } catch {
            return "# cannot build request: " + error.message.replacingOccurrences(of: "\n", with: " ")
        }
    }
}
