import Foundation

/// One set of request parameters and how it is encoded: `.url` into the query string (for any
/// method), `.json` and `.propertyList` as the body, `.form` as an
/// `application/x-www-form-urlencoded` body, or `.custom`. A request may carry several sets;
/// see `HTTPRequest` for how they merge.
///
/// ```swift
/// let query = HTTPRequestParameters(parameters: ["first_name": "John"], encoding: .url)
/// let body = HTTPRequestParameters(parameters: ["salary": 100000], encoding: .json)
/// ```
public struct HTTPRequestParameters: Sendable {
    /// How a parameter set is encoded.
    public enum Encoding: Sendable {
        /// A JSON body (`application/json`).
        case json
        /// The URL query string, appended to any query already in the endpoint.
        case url
        /// An XML property-list body (`application/x-plist`).
        case propertyList
        /// A form body (`application/x-www-form-urlencoded; charset=utf-8`).
        case form
        /// Your own encoding: gets the request resolved so far and this set's parameters.
        case custom(encode: @Sendable (RawRequest, [String: Any]) throws -> RawRequest)

        var kind: Kind {
            switch self {
            case .json: return .json
            case .url: return .url
            case .propertyList: return .propertyList
            case .form: return .form
            case .custom: return .custom
            }
        }

        enum Kind: Equatable { case json, url, propertyList, form, custom }
    }

    /// The parameters as a `Sendable` value tree.
    public var values: [String: ParameterValue]

    /// How this set is encoded.
    public var encoding: Encoding

    /// A parameter set. Values may be strings, numbers, booleans, `NSNull`, dates, arrays and
    /// dictionaries of those; anything else fails the send with `.encodingFailed`.
    public init(parameters: [String: Any] = [:], encoding: Encoding = .json) {
        self.values = parameters.mapValues(ParameterValue.init(any:))
        self.encoding = encoding
    }

    /// A parameter set from a value tree.
    public init(values: [String: ParameterValue], encoding: Encoding) {
        self.values = values
        self.encoding = encoding
    }

    /// The parameters as plain values.
    public var parameters: [String: Any] {
        get { values.mapValues(\.anyValue) }
        set { values = newValue.mapValues(ParameterValue.init(any:)) }
    }

    /// One parameter, read or written by name.
    public subscript(parameterName: String) -> Any? {
        get { values[parameterName]?.anyValue }
        set { values[parameterName] = newValue.map(ParameterValue.init(any:)) }
    }
}
