import CCurl
import Foundation

/// What `<destination>.part.validator` holds beside a resumable part file: which URL the part's
/// bytes came from and the validator (a strong `ETag` or a `Last-Modified` date) that lets the
/// server continue that same entity with `Range` + `If-Range`. Servers may give unrelated files
/// the same validator (ETags made of size and time), so a part is continued only for the URL it
/// came from. The URL is kept as its SHA-256 (URLs may carry signatures and tokens).
///
/// The file is three lines: `HTTPTransport-resume 1`, `url-sha256: <hex>`, `validator: <value>`.
/// Anything else (an older format, a truncated write) reads as no record: the download starts over.
struct ResumeRecord: Equatable {
    let urlDigest: String
    let validator: String

    private static let header = "HTTPTransport-resume 1"
    private static let maxValidatorLength = 512

    /// A record for a body of `url`; `nil` when `validator` cannot identify an entity exactly
    /// (a weak `W/` ETag) or could not be sent back in a header (empty, too long, control bytes).
    init?(url: String, validator: String) {
        let digest = Self.digest(of: url)
        guard Self.isUsable(validator) else { return nil }
        urlDigest = digest
        self.validator = validator
    }

    /// Parses the file's text; `nil` unless it is exactly a record.
    init?(text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 4, lines[0] == Self.header, lines[3].isEmpty,
              lines[1].hasPrefix("url-sha256: "), lines[2].hasPrefix("validator: ") else { return nil }
        let digest = String(lines[1].dropFirst("url-sha256: ".count))
        let validator = String(lines[2].dropFirst("validator: ".count))
        guard digest.utf8.count == 64, digest.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
              Self.isUsable(validator) else { return nil }
        urlDigest = digest
        self.validator = validator
    }

    var text: String { "\(Self.header)\nurl-sha256: \(urlDigest)\nvalidator: \(validator)\n" }

    /// Whether the part this record describes came from `url`.
    func matches(url: String) -> Bool { Self.digest(of: url) == urlDigest }

    /// Whether the validator is an entity tag (rather than a date).
    var isEntityTag: Bool { validator.hasPrefix("\"") }

    private static func isUsable(_ validator: String) -> Bool {
        let bytes = validator.utf8
        return !bytes.isEmpty && bytes.count <= maxValidatorLength && !validator.hasPrefix("W/")
            && bytes.allSatisfy { (0x20...0x7E).contains($0) }
    }

    private static func digest(of url: String) -> String {
        SHA256Digest.hex(of: Data(url.utf8))
    }

    // MARK: On disk, never through a link

    /// The record in the file at `path`, if it is a regular file of this user and holds one.
    static func read(at path: String) -> ResumeRecord? {
        guard case .success(let file) = PrivateFile.openExisting(at: path, access: O_RDONLY),
              let bytes = file.readAll(limit: 1024) else { return nil }
        return ResumeRecord(text: String(decoding: bytes, as: UTF8.self))
    }

    /// Writes the record to a new file at `path` (replacing what was there, links not followed);
    /// `false` when it could not (the download then is not resumable, nothing worse).
    func write(to path: String) -> Bool {
        guard case .success(let file) = PrivateFile.replace(at: path) else { return false }
        let failure = Array(text.utf8).withUnsafeBytes { file.writeAll($0) }
        file.close()
        if failure != nil { _ = PrivateFile.remove(at: path) }
        return failure == nil
    }
}
