import HTTPTransport
import HTTPTypes

extension HTTPHeaders {
    /// The fields of a swift-http-types `HTTPFields`, in order, repeated names kept.
    public init(_ fields: HTTPFields) {
        self.init(fields.map { HTTPHeaders.Field(name: $0.name.rawName, value: $0.value) })
    }
}

extension HTTPFields {
    /// The library's headers as swift-http-types fields, in order, repeated names kept. A field
    /// whose name is not a token (which no server can have sent: libcurl and the library's own
    /// checks refuse them) is left out.
    public init(_ headers: HTTPHeaders) {
        self.init()
        for field in headers {
            guard let name = HTTPField.Name(field.name) else { continue }
            append(HTTPField(name: name, value: field.value))
        }
    }
}
