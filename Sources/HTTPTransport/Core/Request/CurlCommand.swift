import Foundation

extension RawRequest {
    /// A copy-pasteable `curl` command (POSIX shell) that sends this request as HTTPTransport
    /// would: method, headers in order (with the default `User-Agent` when none is set), body,
    /// `--compressed`, and the URL last. Secrets (see `LogRedaction`) read `<redacted>` unless
    /// `redactingSecrets` is `false`.
    ///
    /// In-memory text bodies are inline; binary bodies are piped in by `printf`; file bodies are
    /// read with `--data-binary @path`; multipart bodies become `-F`/`--form-string` parts.
    ///
    /// ```swift
    /// print(try request.resolve().curlCommand())
    /// // curl -X POST \
    /// //   -H 'Content-Type: application/json' \
    /// //   ...
    /// ```
    public func curlCommand(redactingSecrets: Bool = true,
                            userAgent: String? = HTTPTransport.defaultUserAgent) -> String {
        curlCommand(redaction: redactingSecrets ? .default : .disabled, userAgent: userAgent)
    }

    /// A copy-pasteable `curl` command with the given redaction (see `curlCommand(redactingSecrets:userAgent:)`).
    public func curlCommand(redaction: LogRedaction, userAgent: String? = HTTPTransport.defaultUserAgent) -> String {
        var builder = CurlCommandBuilder(redaction: redaction)
        builder.build(self, userAgent: userAgent)
        return builder.output
    }
}

extension HTTPRequestEnvelope {
    /// A copy-pasteable `curl` command for this request as resolved (before any interceptor
    /// runs); a `# cannot build request: …` comment when it cannot be resolved.
    /// See `RawRequest.curlCommand(redactingSecrets:userAgent:)`.
    public func curlCommand(redactingSecrets: Bool = true,
                            userAgent: String? = HTTPTransport.defaultUserAgent) -> String {
        do {
            return try resolve().curlCommand(redactingSecrets: redactingSecrets, userAgent: userAgent)
        } catch {
            // An error's message never shows secrets, whatever `redactingSecrets` says.
            return "# cannot build request: " + error.message.replacingOccurrences(of: "\n", with: " ")
        }
    }
}

/// Shell quoting for the command.
enum Shell {
    /// `text` in single quotes (a `'` becomes `'\''`).
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// A `printf` format that writes `data` byte for byte (octal escapes; POSIX `printf`).
    static func printfFormat(_ data: Data) -> String {
        var format = ""
        format.reserveCapacity(data.count * 2)
        for byte in data {
            switch byte {
            case UInt8(ascii: "%"): format += "%%"
            case UInt8(ascii: "\\"): format += #"\\"#
            case UInt8(ascii: "'"): format += #"\047"#
            case UInt8(ascii: "\n"): format += #"\n"#
            case UInt8(ascii: "\t"): format += #"\t"#
            case UInt8(ascii: "\r"): format += #"\r"#
            case 0x20...0x7E: format.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let octal = String(byte, radix: 8)
                format += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return format
    }

    /// The text of `data` when it can stand inside single quotes as typed text: valid UTF-8
    /// without control characters other than newline and tab.
    static func inlineText(_ data: Data) -> String? {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        let ok = text.unicodeScalars.allSatisfy { scalar in
            scalar == "\n" || scalar == "\t" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
        }
        return ok ? text : nil
    }

    /// `text` as a double-quoted word of curl's `-F` syntax (`\` and `"` escaped).
    static func formWord(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: #"\\"#).replacingOccurrences(of: "\"", with: #"\""#) + "\""
    }
}

/// Builds a curl command line.
struct CurlCommandBuilder {
    let redaction: LogRedaction
    private var arguments: [String] = []
    private var comments: [String] = []
    private var stdin: Data?

    init(redaction: LogRedaction) { self.redaction = redaction }

    var output: String {
        var lines = comments.map { "# " + $0 }
        var command = ""
        if let stdin { command = "printf " + Shell.quote(Shell.printfFormat(stdin)) + " | " }
        command += "curl"
        if arguments.isEmpty {
            lines.append(command)
        } else {
            lines.append(command + " \\")
            for (index, argument) in arguments.enumerated() {
                lines.append("  " + argument + (index == arguments.count - 1 ? "" : " \\"))
            }
        }
        return lines.joined(separator: "\n")
    }

    mutating func build(_ request: RawRequest, userAgent: String?) {
        let method = request.method

        // Method: curl infers GET, HEAD (--head) and POST with a body; others are explicit.
        switch (method, request.body) {
        case (.get, nil): break
        case (.head, nil): arguments.append("--head")
        case (.post, .some): break
        default: arguments.append("-X " + method.rawValue)
        }

        // Headers, as the engine sends them (`--compressed` below stands for Accept-Encoding;
        // `Expect:` is printed for any body, which is what the engine's line does on the wire).
        let fields = WireHeaders.fields(headers: request.headers, turnsOffExpect: request.sendsBody, userAgent: userAgent,
                                        acceptEncoding: nil)
        for field in fields {
            let line = WireHeaders.line(HTTPHeaders.Field(name: field.name,
                                                          value: redaction.headerValue(field.value, name: field.name)))
            arguments.append("-H " + Shell.quote(line))
        }

        // Body.
        switch request.body {
        case nil:
            // The engine sends an empty body (Content-Length: 0) for these.
            if request.sendsBody { arguments.append("--data-binary ''") }
        case .data(let data):
            switch redaction.redactBody(data, contentType: request.value(forHTTPHeaderField: "Content-Type")) {
            case .shown(let shown):
                appendData(shown)
            case .omitted(let reason):
                comments.append("the body (\(data.count) bytes) is left out: \(reason)")
                arguments.append("--data-binary ''")
            }
        case .file(let url):
            arguments.append("--data-binary " + Shell.quote("@" + url.path))
        case .stream:
            // Produced while it was sent, so not here: the command reads it from its input.
            arguments.append("--data-binary @-")
        case .multipart(let parts):
            for part in parts { appendPart(part) }
        }

        arguments.append("--compressed")
        let url = redaction.redactedURL(request.url)
        if url.contains(where: { "[]{}".contains($0) }) { arguments.append("--globoff") }
        arguments.append(Shell.quote(url))
    }

    private mutating func appendData(_ data: Data) {
        if let text = Shell.inlineText(data) {
            // `--data-binary @x` would read a file: such text goes through --data-raw.
            arguments.append((text.hasPrefix("@") ? "--data-raw " : "--data-binary ") + Shell.quote(text))
        } else if stdin == nil {
            stdin = data
            arguments.append("--data-binary @-")
        }
    }

    private mutating func appendPart(_ part: MultipartPart) {
        let name = part.name
        var parameters = ""
        if let fileName = part.fileName { parameters += ";filename=" + Shell.formWord(fileName) }
        if let mimeType = part.mimeType { parameters += ";type=" + mimeType }
        switch part.content {
        case .file(let url):
            arguments.append("-F " + Shell.quote(name + "=@" + Shell.formWord(url.path) + parameters))
        case .data(let content):
            if redaction.hidesField(name), part.fileName == nil {
                arguments.append("--form-string " + Shell.quote(name + "=" + LogRedaction.placeholder))
                return
            }
            let data: Data
            switch redaction.redactBody(content, contentType: part.mimeType) {
            case .shown(let shown): data = shown
            case .omitted(let reason):
                comments.append("part \"\(name)\" (\(content.count) bytes) is left out: \(reason)")
                return
            }
            if let text = Shell.inlineText(data) {
                if parameters.isEmpty {
                    arguments.append("--form-string " + Shell.quote(name + "=" + text))
                } else {
                    arguments.append("-F " + Shell.quote(name + "=" + Shell.formWord(text) + parameters))
                }
            } else if stdin == nil {
                // Binary content comes from stdin: `@-` names a file part, `<-` a plain one.
                stdin = data
                let source = part.fileName == nil ? "<-" : "@-"
                arguments.append("-F " + Shell.quote(name + "=" + source + parameters))
            } else {
                comments.append("part \"\(name)\" (\(data.count) bytes of binary data) is left out: only one part can come from stdin")
            }
        }
    }
}
