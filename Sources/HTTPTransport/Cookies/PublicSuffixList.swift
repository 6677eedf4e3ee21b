import Foundation

/// The Public Suffix List (https://publicsuffix.org), used to refuse cookies whose `Domain`
/// is a registry-controlled suffix such as `com` or `co.uk` (RFC 6265 §5.3 step 5).
///
/// `shared` reads Debian's copy, `/usr/share/publicsuffix/public_suffix_list.dat` (package
/// `publicsuffix`), once, the first time a cookie with a `Domain` attribute is stored. The
/// list's normal, wildcard (`*.`) and exception (`!`) rules are applied; its non-ASCII rules
/// are also kept in their punycode (`xn--`) form, the one hosts have in URLs. When the file is
/// missing or unreadable the list falls back to treating only single-label names (no dot,
/// e.g. `com`, `localhost`) as public suffixes, so `Domain=co.uk` is then accepted.
struct PublicSuffixList: Sendable {
    /// Where Debian's `publicsuffix` package installs the list.
    static let defaultPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// The list read from `defaultPath` (lazily, once, thread-safely as Swift statics are).
    static let shared = PublicSuffixList(contentsOfFile: defaultPath)

    private let rules: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>
    /// True when no list could be read and only the single-label fallback applies.
    let isFallback: Bool

    /// The list in the file at `path`, or the fallback when it cannot be read.
    init(contentsOfFile path: String) {
        if let data = FileManager.default.contents(atPath: path) {
            self.init(listText: String(decoding: data, as: UTF8.self))
        } else {
            self.init(rules: [], wildcards: [], exceptions: [], isFallback: true)
        }
    }

    /// The list in the PSL text format: one rule a line, `//` comments, rule ends at whitespace.
    init(listText: String) {
        var rules = Set<String>(), wildcards = Set<String>(), exceptions = Set<String>()
        for line in listText.split(whereSeparator: \.isNewline) {
            guard let rule = line.split(whereSeparator: \.isWhitespace).first,
                  !rule.hasPrefix("//") else { continue }
            for form in Self.forms(of: rule.lowercased()) {
                if form.hasPrefix("!") {
                    exceptions.insert(String(form.dropFirst()))
                } else if form.hasPrefix("*.") {
                    wildcards.insert(String(form.dropFirst(2)))
                } else {
                    rules.insert(form)
                }
            }
        }
        self.init(rules: rules, wildcards: wildcards, exceptions: exceptions, isFallback: rules.isEmpty)
    }

    private init(rules: Set<String>, wildcards: Set<String>, exceptions: Set<String>, isFallback: Bool) {
        self.rules = rules
        self.wildcards = wildcards
        self.exceptions = exceptions
        self.isFallback = isFallback
    }

    /// Whether `domain` (canonical, lower-case) is itself a public suffix: the PSL algorithm's
    /// public suffix of `domain` is `domain` whole. Names of one label always are (the list's
    /// implicit `*` rule), so the fallback gives the same answer for them.
    func isPublicSuffix(_ domain: String) -> Bool {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count <= 1 { return true }
        if isFallback || exceptions.contains(domain) { return false }
        if rules.contains(domain) { return true }
        return wildcards.contains(labels.dropFirst().joined(separator: "."))
    }

    /// The rule as written, plus its punycode form when it has non-ASCII labels.
    private static func forms(of rule: String) -> [String] {
        guard !rule.utf8.allSatisfy({ $0 < 0x80 }) else { return [rule] }
        let encoded = rule.split(separator: ".", omittingEmptySubsequences: false).map { label -> String in
            guard !label.utf8.allSatisfy({ $0 < 0x80 }), let punycode = Punycode.encode(String(label)) else {
                return String(label)
            }
            return "xn--" + punycode
        }
        return [rule, encoded.joined(separator: ".")]
    }
}

extension PublicSuffixList {
    /// RFC 3492 Punycode encoding of one label (without the `xn--` prefix), for the list's
    /// internationalised rules.
    enum Punycode {
        private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
        private static let initialBias = 72, initialN = 128

        /// The Punycode form of `label`, or nil on overflow (never for real labels).
        static func encode(_ label: String) -> String? {
            let input = label.unicodeScalars.map { Int($0.value) }
            var output = input.filter { $0 < 0x80 }.compactMap { Unicode.Scalar($0).map(Character.init) }
            let basicCount = output.count
            if basicCount > 0 { output.append("-") }
            var n = initialN, delta = 0, bias = initialBias, handled = basicCount
            while handled < input.count {
                guard let m = input.filter({ $0 >= n }).min() else { return nil }
                let (step, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
                guard !overflow, delta <= Int(Int32.max) - step else { return nil }
                delta += step
                n = m
                for c in input {
                    if c < n { delta += 1 }
                    guard c == n else { continue }
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta: delta, count: handled + 1, first: handled == basicCount)
                    delta = 0
                    handled += 1
                }
                delta += 1
                n += 1
            }
            return String(output)
        }

        private static func digit(_ value: Int) -> Character {
            let scalar = value < 26 ? 0x61 + value : 0x30 + value - 26
            return Character(Unicode.Scalar(UInt8(scalar)))
        }

        private static func adapt(delta: Int, count: Int, first: Bool) -> Int {
            var delta = first ? delta / damp : delta / 2
            delta += delta / count
            var k = 0
            while delta > ((base - tMin) * tMax) / 2 {
                delta /= base - tMin
                k += base
            }
            return k + (base - tMin + 1) * delta / (delta + skew)
        }
    }
}
