import Foundation

/// A `Sendable` tree of parameter values: what `[String: Any]` parameters are turned into
/// when a request is built. Unsupported values are kept as `.unsupported` and reported as an
/// `.encodingFailed` error naming the key when the request is sent, never as a crash.
public enum ParameterValue: Sendable, Hashable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case null
    case array([ParameterValue])
    case dictionary([String: ParameterValue])
    /// A value of a type that cannot be encoded; carries the type's name.
    case unsupported(typeName: String)

    /// Converts any supported Swift or Foundation value (strings, integers, floating-point
    /// numbers, `Bool`, `Date`, `NSNull`, optionals, `URL`, arrays and string-keyed dictionaries).
    public init(any value: Any) {
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self = ParameterValue(number: number)
            return
        }
        switch value {
        case let value as ParameterValue: self = value
        case let value as String: self = .string(value)
        case let value as Substring: self = .string(String(value))
        case let value as Character: self = .string(String(value))
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int(value)
        case let value as Int8: self = .int(Int(value))
        case let value as Int16: self = .int(Int(value))
        case let value as Int32: self = .int(Int(value))
        case let value as Int64: self = .int(Int(value))
        case let value as UInt: self = value <= UInt(Int.max) ? .int(Int(value)) : .double(Double(value))
        case let value as UInt8: self = .int(Int(value))
        case let value as UInt16: self = .int(Int(value))
        case let value as UInt32: self = .int(Int(value))
        case let value as UInt64: self = value <= UInt64(Int.max) ? .int(Int(value)) : .double(Double(value))
        case let value as Double: self = .double(value)
        case let value as Float: self = .double(Double(value))
        case let value as Decimal: self = .double(NSDecimalNumber(decimal: value).doubleValue)
        case let value as Date: self = .date(value)
        case let value as URL: self = .string(value.absoluteString)
        case is NSNull: self = .null
        case let value as [String: Any]: self = .dictionary(value.mapValues(ParameterValue.init(any:)))
        case let value as [Any]: self = .array(value.map(ParameterValue.init(any:)))
        default:
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                if let wrapped = mirror.children.first?.value {
                    self = ParameterValue(any: wrapped)
                } else {
                    self = .null
                }
            } else {
                self = .unsupported(typeName: String(describing: type(of: value)))
            }
        }
    }

    private init(number: NSNumber) {
        let type = String(cString: number.objCType)
        switch type {
        case "c", "B": self = .bool(number.boolValue)
        case "f", "d": self = .double(number.doubleValue)
        default: self = .int(number.intValue)
        }
    }

    /// The value as a plain Swift value (`String`, `Int`, `Double`, `Bool`, `Date`, `NSNull`,
    /// arrays and dictionaries of those), as `HTTPRequestParameters.parameters` returns it.
    public var anyValue: Any {
        switch self {
        case .string(let value): return value
        case .int(let value): return value
        case .double(let value): return value
        case .bool(let value): return value
        case .date(let value): return value
        case .null: return NSNull()
        case .array(let values): return values.map(\.anyValue)
        case .dictionary(let values): return values.mapValues(\.anyValue)
        case .unsupported(let typeName): return "<unsupported \(typeName)>"
        }
    }

    /// The path of the first unsupported value below this one (`"user.tags[2]"`), if any.
    func firstUnsupportedPath(prefix: String) -> (path: String, typeName: String)? {
        switch self {
        case .unsupported(let typeName): return (prefix, typeName)
        case .double(let value) where !value.isFinite: return (prefix, "non-finite Double \(value)")
        case .array(let values):
            for (index, value) in values.enumerated() {
                if let found = value.firstUnsupportedPath(prefix: "\(prefix)[\(index)]") { return found }
            }
            return nil
        case .dictionary(let values):
            for key in values.keys.sorted() {
                if let found = values[key]?.firstUnsupportedPath(prefix: prefix.isEmpty ? key : "\(prefix).\(key)") {
                    return found
                }
            }
            return nil
        default: return nil
        }
    }
}
