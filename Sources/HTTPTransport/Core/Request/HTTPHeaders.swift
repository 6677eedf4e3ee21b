/// An ordered list of HTTP header fields that keeps every value of a repeated name
/// (several `Set-Cookie` lines stay several entries). Names compare case-insensitively.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header line.
    public struct Field: Sendable, Hashable {
        /// The name as written (`Content-Type`).
        public var name: String
        /// The value, without surrounding whitespace.
        public var value: String

        /// A header line.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields, in order. (Headers received from a server are kept as bytes and decoded
    /// here, on each read: read them once, or look fields up by name.)
    public private(set) var fields: [Field] {
        get {
            switch storage {
            case .fields(let fields): fields
            case .received(let block): block.fields
            }
        }
        set { storage = .fields(newValue) }
    }

    /// Fields built in code, or a block received from a server, decoded on demand.
    private enum Storage: Sendable {
        case fields([Field])
        case received(ReceivedHeaderLines)
    }

    private var storage: Storage

    /// An empty header list.
    public init() { storage = .fields([]) }

    /// Headers from fields, in order.
    public init(_ fields: [Field]) { storage = .fields(fields) }

    /// Headers from a dictionary, sorted by name so the order is stable.
    public init(_ dictionary: [String: String]) {
        storage = .fields(dictionary.isEmpty ? [] : dictionary.sorted { $0.key < $1.key }.map { Field(name: $0.key, value: $0.value) })
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        storage = .fields(elements.map { Field(name: $0.0, value: $0.1) })
    }

    /// Headers as a server sent them.
    init(received lines: ReceivedHeaderLines) { storage = .received(lines) }

    /// The number of fields.
    public var count: Int {
        switch storage {
        case .fields(let fields): fields.count
        case .received(let block): block.count
        }
    }

    /// `true` when there is no field.
    public var isEmpty: Bool { count == 0 }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of `name`, or `nil`.
    public func first(_ name: String) -> String? {
        switch storage {
        case .fields(let fields): fields.first { $0.name.caseInsensitiveEquals(name) }?.value
        case .received(let block): block.values(named: name, limit: 1).first
        }
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        switch storage {
        case .fields(let fields): fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
        case .received(let block): block.values(named: name)
        }
    }

    /// `true` if a field named `name` exists.
    public func contains(_ name: String) -> Bool {
        switch storage {
        case .fields(let fields): fields.contains { $0.name.caseInsensitiveEquals(name) }
        case .received(let block): block.contains(name)
        }
    }

    /// Every value of `name` joined with `", "`, or `nil` (the combined form of RFC 9110 §5.3).
    public subscript(name: String) -> String? {
        get {
            let all = values(name)
            return all.isEmpty ? nil : all.joined(separator: ", ")
        }
        set {
            if let newValue { replace(name, with: newValue) } else { remove(name) }
        }
    }

    /// Appends a field, keeping existing ones with that name.
    public mutating func add(_ name: String, _ value: String) {
        withFields { $0.append(Field(name: name, value: value)) }
    }

    /// Replaces every field named `name` with one field, at the place of the first.
    public mutating func replace(_ name: String, with value: String) {
        withFields { fields in
            if let index = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) {
                fields[index] = Field(name: name, value: value)
                var position = fields.index(after: index)
                while position < fields.endIndex {
                    if fields[position].name.caseInsensitiveEquals(name) {
                        fields.remove(at: position)
                    } else {
                        position = fields.index(after: position)
                    }
                }
            } else {
                fields.append(Field(name: name, value: value))
            }
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        withFields { fields in fields.removeAll { $0.name.caseInsensitiveEquals(name) } }
    }

    /// Changes the fields in place (a received block is decoded first).
    private mutating func withFields<R>(_ body: (inout [Field]) -> R) -> R {
        // Moved out, so `fields` holds the only reference and changes without a copy.
        var current = Storage.fields([])
        swap(&current, &storage)
        var fields: [Field]
        switch consume current {
        case .fields(let built): fields = built
        case .received(let block): fields = block.fields
        }
        defer { storage = .fields(fields) }
        return body(&fields)
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.count == rhs.count && lhs.fields == rhs.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
    }

    /// One entry per name (first spelling kept), repeated values joined with `", "`.
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        var spelling: [String: String] = [:]
        for field in fields {
            let key = field.name.lowercased()
            if let existing = spelling[key] {
                result[existing] = (result[existing] ?? "") + ", " + field.value
            } else {
                spelling[key] = field.name
                result[field.name] = field.value
            }
        }
        return result
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}

extension String {
    /// ASCII case-insensitive comparison, as header names need (fast path for equal lengths).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let lhs = utf8, rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        // Native strings are contiguous UTF-8: compare the bytes directly.
        if let result = lhs.withContiguousStorageIfAvailable({ a in
            rhs.withContiguousStorageIfAvailable { b in Self.asciiCaseInsensitiveEqual(a, b) }
        }), let result {
            return result
        }
        for (a, b) in zip(lhs, rhs) where a != b {
            let la = (a >= 65 && a <= 90) ? a + 32 : a
            let lb = (b >= 65 && b <= 90) ? b + 32 : b
            if la != lb { return false }
        }
        return true
    }

    private static func asciiCaseInsensitiveEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<a.count {
            let x = a[index], y = b[index]
            if x == y { continue }
            let lx = (x >= 65 && x <= 90) ? x + 32 : x
            let ly = (y >= 65 && y <= 90) ? y + 32 : y
            if lx != ly { return false }
        }
        return true
    }
}
