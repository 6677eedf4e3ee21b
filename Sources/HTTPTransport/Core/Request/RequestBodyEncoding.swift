import Foundation

/// The body of a resolved request, by the request type's rule (see `RequestResolver.BodyRule`),
/// with the `Content-Type` it implies unless the request set one. (`url` is the request's, for
/// errors: made into text only when one is thrown.)
enum RequestBodyEncoding {
    static func body(for rule: RequestResolver.BodyRule, sets: [HTTPRequestParameters], headers: inout HTTPHeaders,
                     url: URL) throws(HTTPTransportError) -> RawRequest.Body? {
        switch rule {
        case .parameters:
            return try parameterBody(sets, headers: &headers, url: url)
        case .data(let data):
            setDefault(&headers, "Content-Type", "application/octet-stream")
            return .data(data)
        case .file(let fileURL):
            try checkReadable(fileURL, url: url)
            setDefault(&headers, "Content-Type", "application/octet-stream")
            return .file(fileURL)
        case .stream(let body):
            setDefault(&headers, "Content-Type", "application/octet-stream")
            return .stream(body)
        case .multipart(let file):
            return .multipart(try multipartParts(file, sets: sets, url: url))
        }
    }

    /// The winning body encoding among `.json`, `.propertyList` and `.form`: the last set's.
    private static func parameterBody(_ sets: [HTTPRequestParameters], headers: inout HTTPHeaders,
                                      url: URL) throws(HTTPTransportError) -> RawRequest.Body? {
        let bodyKinds: [HTTPRequestParameters.Encoding.Kind] = [.json, .propertyList, .form]
        guard let winner = sets.last(where: { bodyKinds.contains($0.encoding.kind) })?.encoding.kind,
              let values = RequestResolver.merged(sets, kind: winner) else { return nil }
        try RequestResolver.checkSupported(values, encoding: "\(winner)")
        switch winner {
        case .json:
            setDefault(&headers, "Content-Type", "application/json")
            return .data(JSONParameterEncoder.encode(values))
        case .propertyList:
            setDefault(&headers, "Content-Type", "application/x-plist")
            do {
                return .data(try PropertyListParameterEncoder.encode(values))
            } catch let error as HTTPTransportError {
                var error = error
                if error.url == nil { error.url = url.absoluteString }
                throw error
            } catch {
                throw HTTPTransportError(code: .encodingFailed, message: "Property-list encoding failed: \(error)",
                                         url: url.absoluteString)
            }
        default:
            setDefault(&headers, "Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
            return .data(Data(URLQueryEncoder.encode(values).utf8))
        }
    }

    /// The file part, then every `.propertyList`/`.form` value as a field (`.json` sets ignored).
    private static func multipartParts(_ file: FileMultipart, sets: [HTTPRequestParameters],
                                       url: URL) throws(HTTPTransportError) -> [MultipartPart] {
        if let fileURL = file.fileURL { try checkReadable(fileURL, url: url) }
        var parts = [file.multipartPart]
        var fields: [String: ParameterValue] = [:]
        for set in sets where set.encoding.kind == .propertyList || set.encoding.kind == .form {
            fields.merge(set.values) { _, new in new }
        }
        try RequestResolver.checkSupported(fields, encoding: "form")
        for key in fields.keys.sorted() {
            guard let value = fields[key] else { continue }
            for (name, text) in formFields(key: key, value: value) {
                parts.append(MultipartPart(name: name, content: .data(Data(text.utf8))))
            }
        }
        try HeaderFieldRules.check(parts: parts, url: url.absoluteString)
        return parts
    }

    private static func checkReadable(_ file: URL, url: URL) throws(HTTPTransportError) {
        if let problem = UploadFile.problem(with: file) {
            throw HTTPTransportError(code: .fileIO, message: "Cannot read the file to upload (\(problem)): \(file.path)",
                                     url: url.absoluteString)
        }
    }

    private static func setDefault(_ headers: inout HTTPHeaders, _ name: String, _ value: String) {
        if !headers.contains(name) { headers.add(name, value) }
    }

    /// Form fields for a nested value, named the way URL encoding names them.
    private static func formFields(key: String, value: ParameterValue) -> [(String, String)] {
        switch value {
        case .dictionary(let dictionary):
            return dictionary.keys.sorted().flatMap { nested in
                dictionary[nested].map { formFields(key: "\(key)[\(nested)]", value: $0) } ?? []
            }
        case .array(let values):
            return values.flatMap { formFields(key: "\(key)[]", value: $0) }
        default:
            return [(key, URLQueryEncoder.scalarString(value))]
        }
    }
}
