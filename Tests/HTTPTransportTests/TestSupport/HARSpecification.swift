import Foundation

/// A JSON value with its exact type (JSONSerialization on Linux cannot tell `true` from `1`).
enum JSONValue: Decodable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}

/// Checks a document against HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), field by
/// field: every required field present with its type, optional fields typed when present, no
/// field the specification does not name unless it starts with `_` (custom fields), times that
/// add up. Returns what is wrong, as `path: problem` lines.
struct HARSpecification {
    private(set) var violations: [String] = []

    enum Kind { case string, integer, number, bool, object, array, isoDate, absoluteURL }
    /// A field: required or not, its kind, and the checker of an object or of an array's items.
    typealias Field = (required: Bool, kind: Kind, check: ((inout HARSpecification, String, JSONValue) -> Void)?)

    static func violations(of data: Data) throws -> [String] {
        var specification = HARSpecification()
        let root = try JSONDecoder().decode(JSONValue.self, from: data)
        specification.object("", root, ["log": (true, .object, { $0.log($1, $2) })])
        return specification.violations
    }

    private mutating func log(_ path: String, _ value: JSONValue) {
        if case .object(let log) = value, case .string(let version)? = log["version"], version != "1.2" {
            violations.append("\(path).version: \(version), expected 1.2")
        }
        object(path, value, ["version": (true, .string, nil), "creator": (true, .object, { $0.creator($1, $2) }),
                             "browser": (false, .object, { $0.creator($1, $2) }), "pages": (false, .array, { $0.page($1, $2) }),
                             "entries": (true, .array, { $0.entry($1, $2) }), "comment": (false, .string, nil)])
    }

    private mutating func page(_ path: String, _ value: JSONValue) {
        object(path, value, ["startedDateTime": (true, .isoDate, nil), "id": (true, .string, nil), "title": (true, .string, nil),
                             "pageTimings": (true, .object, { $0.pageTimings($1, $2) }), "comment": (false, .string, nil)])
    }

    private mutating func pageTimings(_ path: String, _ value: JSONValue) {
        object(path, value, ["onContentLoad": (false, .number, nil), "onLoad": (false, .number, nil), "comment": (false, .string, nil)])
    }

    private mutating func creator(_ path: String, _ value: JSONValue) {
        object(path, value, ["name": (true, .string, nil), "version": (true, .string, nil), "comment": (false, .string, nil)])
    }

    private mutating func entry(_ path: String, _ value: JSONValue) {
        object(path, value, [
            "pageref": (false, .string, nil), "startedDateTime": (true, .isoDate, nil), "time": (true, .number, nil),
            "request": (true, .object, { $0.request($1, $2) }), "response": (true, .object, { $0.response($1, $2) }),
            "cache": (true, .object, { $0.cache($1, $2) }), "timings": (true, .object, { $0.timings($1, $2) }),
            "serverIPAddress": (false, .string, nil), "connection": (false, .string, nil), "comment": (false, .string, nil),
        ])
        guard case .object(let entry) = value, case .number(let time)? = entry["time"],
              case .object(let timings)? = entry["timings"] else { return }
        let sum = ["blocked", "dns", "connect", "send", "wait", "receive"].compactMap { name -> Double? in
            if case .number(let phase)? = timings[name], phase >= 0 { return phase }
            return nil
        }.reduce(0, +)
        if abs(sum - time) > 0.01 { violations.append("\(path).time: \(time) is not the sum of the timings (\(sum))") }
    }

    private mutating func request(_ path: String, _ value: JSONValue) {
        object(path, value, [
            "method": (true, .string, nil), "url": (true, .absoluteURL, nil), "httpVersion": (true, .string, nil),
            "cookies": (true, .array, { $0.cookie($1, $2) }), "headers": (true, .array, { $0.nameValue($1, $2) }),
            "queryString": (true, .array, { $0.nameValue($1, $2) }), "postData": (false, .object, { $0.postData($1, $2) }),
            "headersSize": (true, .integer, nil), "bodySize": (true, .integer, nil), "comment": (false, .string, nil),
        ])
    }

    private mutating func response(_ path: String, _ value: JSONValue) {
        object(path, value, [
            "status": (true, .integer, nil), "statusText": (true, .string, nil), "httpVersion": (true, .string, nil),
            "cookies": (true, .array, { $0.cookie($1, $2) }), "headers": (true, .array, { $0.nameValue($1, $2) }),
            "content": (true, .object, { $0.content($1, $2) }), "redirectURL": (true, .string, nil),
            "headersSize": (true, .integer, nil), "bodySize": (true, .integer, nil), "comment": (false, .string, nil),
        ])
    }

    private mutating func cookie(_ path: String, _ value: JSONValue) {
        object(path, value, [
            "name": (true, .string, nil), "value": (true, .string, nil), "path": (false, .string, nil),
            "domain": (false, .string, nil), "expires": (false, .isoDate, nil), "httpOnly": (false, .bool, nil),
            "secure": (false, .bool, nil), "comment": (false, .string, nil),
        ])
    }

    private mutating func nameValue(_ path: String, _ value: JSONValue) {
        object(path, value, ["name": (true, .string, nil), "value": (true, .string, nil), "comment": (false, .string, nil)])
    }

    private mutating func postData(_ path: String, _ value: JSONValue) {
        object(path, value, [
            "mimeType": (true, .string, nil), "params": (true, .array, { $0.param($1, $2) }), "text": (true, .string, nil),
            "comment": (false, .string, nil),
        ])
    }

    private mutating func param(_ path: String, _ value: JSONValue) {
        object(path, value, [
            "name": (true, .string, nil), "value": (false, .string, nil), "fileName": (false, .string, nil),
            "contentType": (false, .string, nil), "comment": (false, .string, nil),
        ])
    }

    private mutating func content(_ path: String, _ value: JSONValue) {
        object(path, value, [
            "size": (true, .integer, nil), "compression": (false, .integer, nil), "mimeType": (true, .string, nil),
            "text": (false, .string, nil), "encoding": (false, .string, nil), "comment": (false, .string, nil),
        ])
        if case .object(let content) = value, case .string(let encoding)? = content["encoding"], encoding != "base64" {
            violations.append("\(path).encoding: \(encoding)")
        }
    }

    private mutating func cache(_ path: String, _ value: JSONValue) {
        object(path, value, ["beforeRequest": (false, .object, nil), "afterRequest": (false, .object, nil),
                             "comment": (false, .string, nil)])
    }

    private mutating func timings(_ path: String, _ value: JSONValue) {
        let phases = ["blocked": false, "dns": false, "connect": false, "send": true, "wait": true, "receive": true, "ssl": false]
        var fields: [String: Field] = ["comment": (false, .string, nil)]
        for (name, required) in phases { fields[name] = (required, .number, nil) }
        object(path, value, fields)
        guard case .object(let timings) = value else { return }
        for (name, required) in phases {
            guard case .number(let phase)? = timings[name] else { continue }
            if phase < 0 && (required || phase != -1) { violations.append("\(path).\(name): \(phase)") }
        }
    }
}

extension HARSpecification {
    /// Checks that `value` is an object with `fields` (and custom `_` fields only besides).
    mutating func object(_ path: String, _ value: JSONValue, _ fields: [String: Field]) {
        guard case .object(let object) = value else {
            violations.append("\(path): not an object")
            return
        }
        for name in object.keys.sorted() where fields[name] == nil && !name.hasPrefix("_") {
            violations.append("\(path).\(name): not a HAR 1.2 field (custom fields start with _)")
        }
        for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
            let fieldPath = "\(path).\(name)"
            guard let member = object[name] else {
                if field.required { violations.append("\(fieldPath): missing") }
                continue
            }
            guard Self.has(field.kind, member) else {
                violations.append("\(fieldPath): not of kind \(field.kind): \(member)")
                continue
            }
            guard let check = field.check else { continue }
            if case .array(let items) = member {
                for (index, item) in items.enumerated() { check(&self, "\(fieldPath)[\(index)]", item) }
            } else {
                check(&self, fieldPath, member)
            }
        }
    }

    private static func has(_ kind: Kind, _ value: JSONValue) -> Bool {
        switch (kind, value) {
        case (.string, .string), (.number, .number), (.bool, .bool), (.object, .object), (.array, .array): return true
        case (.integer, .number(let number)): return number.rounded() == number
        case (.isoDate, .string(let text)):
            return text.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$"#, options: .regularExpression) != nil
        case (.absoluteURL, .string(let text)):
            return text.range(of: "^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]+", options: .regularExpression) != nil
        default: return false
        }
    }
}
