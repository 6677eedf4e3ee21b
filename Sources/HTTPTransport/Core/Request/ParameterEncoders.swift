import Foundation

/// Alamofire's URL/form encoding: `a[]=1&a[]=2` for arrays, `a[b]=c` for dictionaries, keys
/// sorted at every level, booleans as `1`/`0`, dates as ISO 8601, `null` as an empty value,
/// and RFC 3986 escaping that leaves only unreserved characters, `?` and `/` as they are
/// (spaces become `%20`; brackets in keys are escaped too, as Alamofire does).
enum URLQueryEncoder {
    static func encode(_ parameters: [String: ParameterValue]) -> String {
        var components: [String] = []
        for key in parameters.keys.sorted() {
            if let value = parameters[key] { append(key: key, value: value, to: &components) }
        }
        return components.joined(separator: "&")
    }

    private static func append(key: String, value: ParameterValue, to components: inout [String]) {
        switch value {
        case .dictionary(let dictionary):
            for nestedKey in dictionary.keys.sorted() {
                if let nested = dictionary[nestedKey] {
                    append(key: "\(key)[\(nestedKey)]", value: nested, to: &components)
                }
            }
        case .array(let values):
            for nested in values { append(key: "\(key)[]", value: nested, to: &components) }
        default:
            components.append(escape(key) + "=" + escape(scalarString(value)))
        }
    }

    static func scalarString(_ value: ParameterValue) -> String {
        switch value {
        case .string(let string): return string
        case .int(let int): return String(int)
        case .double(let double): return String(double)
        case .bool(let bool): return bool ? "1" : "0"
        case .date(let date): return iso8601(date)
        case .null: return ""
        case .array, .dictionary, .unsupported: return ""
        }
    }

    private static let allowed: Set<UInt8> = {
        var set = Set<UInt8>()
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { set.insert(byte) }
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { set.insert(byte) }
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { set.insert(byte) }
        for character in "-._~/?".utf8 { set.insert(character) }
        return set
    }()

    /// Percent-encodes everything but unreserved characters, `?` and `/`.
    static func escape(_ string: String) -> String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if allowed.contains(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}

/// A small, deterministic JSON writer for parameter trees (sorted keys; dates as ISO 8601).
enum JSONParameterEncoder {
    static func encode(_ parameters: [String: ParameterValue]) -> Data {
        var output = ""
        write(.dictionary(parameters), to: &output)
        return Data(output.utf8)
    }

    private static func write(_ value: ParameterValue, to output: inout String) {
        switch value {
        case .string(let string): writeString(string, to: &output)
        case .int(let int): output += String(int)
        case .double(let double):
            if double.rounded() == double, abs(double) < 1e15 {
                output += String(Int64(double))
            } else {
                output += String(double)
            }
        case .bool(let bool): output += bool ? "true" : "false"
        case .date(let date): writeString(URLQueryEncoder.iso8601(date), to: &output)
        case .null, .unsupported: output += "null"
        case .array(let values):
            output += "["
            for (index, element) in values.enumerated() {
                if index > 0 { output += "," }
                write(element, to: &output)
            }
            output += "]"
        case .dictionary(let dictionary):
            output += "{"
            for (index, key) in dictionary.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                writeString(key, to: &output)
                output += ":"
                if let element = dictionary[key] { write(element, to: &output) }
            }
            output += "}"
        }
    }

    private static func writeString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}

/// XML property-list encoding of a parameter tree (`null` is not representable there).
enum PropertyListParameterEncoder {
    static func encode(_ parameters: [String: ParameterValue]) throws -> Data {
        try PropertyListSerialization.data(
            fromPropertyList: plistValue(.dictionary(parameters), path: ""), format: .xml, options: 0)
    }

    private static func plistValue(_ value: ParameterValue, path: String) throws -> Any {
        switch value {
        case .string(let string): return string
        case .int(let int): return NSNumber(value: int)
        case .double(let double): return NSNumber(value: double)
        case .bool(let bool): return NSNumber(value: bool)
        case .date(let date): return date
        case .null, .unsupported:
            throw HTTPTransportError(code: .encodingFailed,
                                     message: "Parameter '\(path)' is null, which a property list cannot hold.")
        case .array(let values):
            return try values.enumerated().map { try plistValue($0.element, path: "\(path)[\($0.offset)]") }
        case .dictionary(let dictionary):
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                result[key] = try plistValue(element, path: path.isEmpty ? key : "\(path).\(key)")
            }
            return result
        }
    }
}
