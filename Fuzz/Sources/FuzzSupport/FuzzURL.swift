import Foundation

/// URLs from fuzzer text.
public enum FuzzURL {
    /// A URL every target may fall back to (a literal, so it always parses).
    public static let fallback = URL(string: "https://www.example.com/dir/page?q=1")!

    /// `scheme://rest` when Foundation reads it and it has a host, else `fallback`.
    public static func make(scheme: String, rest: String) -> URL {
        guard let url = URL(string: "\(scheme)://\(rest)"), let host = url.host, !host.isEmpty else { return fallback }
        return url
    }
}
