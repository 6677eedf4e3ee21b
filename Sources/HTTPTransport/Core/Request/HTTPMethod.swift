extension HTTPRequest {
    /// A request method: one of RFC 9110's (`.get`, `.post`, …) or any other method token, sent
    /// as written (`HTTPMethod(rawValue: "PURGE")`, `"PROPFIND"`, `"M-SEARCH"`).
    ///
    /// Matched in `switch` like an enum's cases (`case .get:`); a `default:` covers the others.
    /// `init(rawValue:)` returns nil for text that is not a method token (RFC 9110 §5.6.2: letters,
    /// digits and ``!#$%&'*+-.^_`|~``), so a method can never smuggle a space or a line break
    /// into the request line.
    public struct HTTPMethod: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The method as sent (`"GET"`).
        public let rawValue: String

        /// A method from its token, case kept as written (methods are case-sensitive); nil for
        /// text that is not a token.
        public init?(rawValue: String) {
            guard Self.isToken(rawValue) else { return nil }
            self.rawValue = rawValue
        }

        private init(known: String) { rawValue = known }

        public static let get = HTTPMethod(known: "GET")
        public static let post = HTTPMethod(known: "POST")
        public static let put = HTTPMethod(known: "PUT")
        public static let patch = HTTPMethod(known: "PATCH")
        public static let delete = HTTPMethod(known: "DELETE")
        public static let head = HTTPMethod(known: "HEAD")
        public static let options = HTTPMethod(known: "OPTIONS")
        public static let trace = HTTPMethod(known: "TRACE")
        public static let connect = HTTPMethod(known: "CONNECT")

        /// RFC 9110's methods, the ones with a static member.
        public static let allCases: [HTTPMethod] = [.get, .post, .put, .patch, .delete, .head, .options, .trace, .connect]

        /// Methods RFC 9110 calls idempotent (safe to send again). A method it does not define
        /// is not known to be, so it is never resent.
        public var isIdempotent: Bool {
            switch self {
            case .get, .put, .delete, .head, .options, .trace: true
            default: false
            }
        }

        public var description: String { rawValue }

        /// RFC 9110's `token`: one or more tchar.
        static func isToken(_ text: String) -> Bool {
            !text.isEmpty && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default:
                    "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
        }
    }
}
