import CLibPSL
import Foundation

/// The Public Suffix List (https://publicsuffix.org) through libpsl, the library libcurl uses
/// for the same check: it refuses cookies whose `Domain` is a registry-controlled suffix such
/// as `com`, `co.uk` or `github.io` (RFC 6265 §5.3 step 5). Wildcard and exception rules, the
/// private section and internationalised names (UTF-8 or punycode) are libpsl's business.
///
/// `shared` takes the data the way libcurl does (`psl_latest`): the list compiled into libpsl
/// or the system's copy (Debian's `publicsuffix` package, `psl_dist_filename()`), whichever is
/// newer, so an updated system list applies without rebuilding anything; the built-in list
/// when the file is missing. Without any data, every name counts as a public suffix, so a
/// `Domain` attribute can only ever name the host itself (fail closed).
final class PublicSuffixList: @unchecked Sendable {
    // @unchecked: a libpsl context is never changed after loading; lookups only read it, so it
    // may be shared by every thread.

    /// libpsl's newest data, loaded once, the first time a cookie with a `Domain` is stored.
    static let shared = latest()

    /// The libpsl context (`psl_ctx_t *`), nil when there is no data.
    private let context: OpaquePointer?
    /// Whether `context` was allocated for this list (and is freed with it).
    private let ownsContext: Bool

    private init(context: OpaquePointer?, ownsContext: Bool) {
        self.context = context
        self.ownsContext = ownsContext
    }

    /// The newest of libpsl's built-in list and the system's list file.
    static func latest() -> PublicSuffixList {
        if let latest = psl_latest(nil) { return PublicSuffixList(context: latest, ownsContext: true) }
        return PublicSuffixList(context: psl_builtin(), ownsContext: false)
    }

    /// The list in a file in the PSL text or DAFSA format; a list without data when the file
    /// cannot be read (for tests).
    convenience init(file: URL) {
        let context = psl_load_file(file.path)
        self.init(context: context, ownsContext: context != nil)
    }

    /// A list without data, under which every name is a public suffix (for tests).
    static func withoutData() -> PublicSuffixList {
        PublicSuffixList(context: nil, ownsContext: false)
    }

    deinit {
        if ownsContext, let context { psl_free(context) }
    }

    /// Whether there is any data (false only when libpsl has neither built-in data nor a file).
    var hasData: Bool { context != nil }

    /// Whether `domain` (canonical: lower-case, without a trailing dot) is itself a public
    /// suffix. Names of one label are (the list's implicit `*` rule), as is every name when
    /// there is no data, or a name libpsl could not read.
    func isPublicSuffix(_ domain: String) -> Bool {
        guard let context, !domain.isEmpty, !domain.utf8.contains(0) else { return true }
        return psl_is_public_suffix(context, domain) != 0
    }
}
