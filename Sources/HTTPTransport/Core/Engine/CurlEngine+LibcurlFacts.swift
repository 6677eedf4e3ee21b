import CCurl
import Foundation

/// What this process's libcurl is and does, read once.
extension CurlEngine {
    /// The libcurl version this process runs with (e.g. `"7.88.1"`).
    static let libcurlVersion: String = {
        ccurl_global_init()
        guard let info = curl_version_info(CURLVERSION_TENTH), let version = info.pointee.version else { return "unknown" }
        return String(cString: version)
    }()

    /// The libcurl version as libcurl numbers it (`0xXXYYZZ`: 7.88.1 is `0x075801`).
    static let libcurlVersionNumber: UInt32 = {
        ccurl_global_init()
        return curl_version_info(CURLVERSION_TENTH).map { UInt32($0.pointee.version_num) } ?? 0
    }()

    /// Whether this libcurl refuses a response whose `Transfer-Encoding` lists a coding other than
    /// `chunked` and `identity` (libcurl 8 does, as it reads the header: "Unsolicited
    /// Transfer-Encoding"; 7.88 passes such a body on as it came, as browsers do).
    static var refusesUnknownTransferCodings: Bool { libcurlVersionNumber >= 0x08_00_00 }

    /// The content encodings this libcurl decodes, as it lists them in `Accept-Encoding` for
    /// `CURLOPT_ACCEPT_ENCODING ""` (the engine decodes them itself, `ContentDecoder`). The
    /// engine writes the header itself, once per header list, instead of libcurl formatting its
    /// own copy on every transfer; a test checks it equals what libcurl sends.
    static let acceptEncoding = decodedContentCodings.joined(separator: ", ")

    /// The codings this libcurl decodes, in the order it lists them.
    private static let decodedContentCodings: [String] = {
        ccurl_global_init()
        guard let info = curl_version_info(CURLVERSION_TENTH)?.pointee else { return [] }
        var names: [String] = []
        if info.features & CURL_VERSION_LIBZ != 0 { names += ["deflate", "gzip"] }
        if info.features & CURL_VERSION_BROTLI != 0 { names.append("br") }
        if info.features & CURL_VERSION_ZSTD != 0 { names.append("zstd") }
        return names
    }()

    /// Every name libcurl's decoder stack accepts (content_encoding.c: `x-gzip` is gzip,
    /// `identity` and `none` change nothing), lower-cased.
    private static let decodableContentCodings: Set<String> = {
        var names = Set(decodedContentCodings).union(["identity", "none"])
        if names.contains("gzip") { names.insert("x-gzip") }
        return names
    }()

    /// Whether every coding a `Content-Encoding` value lists is one this libcurl decodes (names
    /// compared ignoring case, empty list members skipped, as libcurl reads them): the codings
    /// its `Accept-Encoding` offers, which the engine's own decoder decodes (`ContentDecoder`).
    static func decodesEveryContentCoding(_ value: String) -> Bool {
        value.split(separator: ",").allSatisfy { member in
            let name = member.trimmingCharacters(in: CharacterSet(charactersIn: " \t")).lowercased()
            return name.isEmpty || decodableContentCodings.contains(name)
        }
    }

    /// Whether a URL string (as libcurl gets it) starts with `https:`, in any case (on the
    /// string's bytes: cheaper than asking `URL` for its scheme).
    static func isHTTPS(_ url: String) -> Bool {
        func check(_ bytes: some Collection<UInt8>) -> Bool {
            var index = bytes.startIndex
            for expected in "https:".utf8 {
                guard index != bytes.endIndex, bytes[index] | 0x20 == expected | 0x20 else { return false }
                bytes.formIndex(after: &index)
            }
            return true
        }
        return url.utf8.withContiguousStorageIfAvailable(check) ?? check(url.utf8)
    }
}
