import Foundation
import FuzzSupport
import HTTPTransport

@_cdecl("FuzzParameterEncoding_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzParameterEncoding) }

/// Parameter trees built from the input (kind bytes, texts, numbers; at most four levels).
/// Invariants: the URL/form encoding parses back (split at `&` and the first `=`, percent-
/// decoded, and through Foundation's `URLComponents`) to exactly the pairs the tree flattens to;
/// appended to a URL with a query and a fragment it keeps both and adds itself; the JSON body
/// parses back to the tree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParameterEncoding(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    var budget = 64
    var tree: Library.Tree = [:]
    while !input.isAtEnd, budget > 0 {
        tree[input.text()] = value(&input, depth: 0, budget: &budget)
    }

    let query = Library.query(tree)
    let expected = tree.keys.sorted().flatMap { key in tree[key].map { pairs(key, $0) } ?? [] }
    let parsed = query.isEmpty ? [] : query.split(separator: "&", omittingEmptySubsequences: false).map { part -> Pair in
        let equals = part.firstIndex(of: "=") ?? part.endIndex
        let value = equals < part.endIndex ? part[part.index(after: equals)...] : ""
        return Pair(String(part[..<equals]).removingPercentEncoding ?? "?", String(value).removingPercentEncoding ?? "?")
    }
    Invariant.check(parsed == expected, "query \(Invariant.show(query)) parses to \(Invariant.show(parsed)), expected \(Invariant.show(expected))")
    let items = URLComponents(string: "https://example.com/?" + query)?.percentEncodedQueryItems?.map {
        Pair($0.name.removingPercentEncoding ?? "?", $0.value?.removingPercentEncoding ?? "")
    }
    Invariant.check(query.isEmpty || items == expected, "URLComponents reads \(Invariant.show(query)) as \(Invariant.show(items))")

    let appended = Library.appendingQuery(query, to: FuzzURL.fallback)
    let expectedQuery = query.isEmpty ? "q=1" : "q=1&" + query
    Invariant.check(appended.query(percentEncoded: true) == expectedQuery && appended.host == FuzzURL.fallback.host,
                    "appending \(Invariant.show(query)) gives \(appended.absoluteString)")

    let json = Library.json(tree)
    let object = try? JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
    Invariant.check(object.map { matches($0, .dictionary(tree)) } == true,
                    "JSON \(String(decoding: json, as: UTF8.self)) does not read back as \(Invariant.show(tree))")
    return 0
}

struct Pair: Equatable, CustomDebugStringConvertible {
    var name: String
    var value: String
    init(_ name: String, _ value: String) { self.name = name; self.value = value }
    var debugDescription: String { "\(name.debugDescription)=\(value.debugDescription)" }
}

/// The pairs a value stands for, named as the encoding documents (`a[b]`, `a[]`).
private func pairs(_ key: String, _ value: ParameterValue) -> [Pair] {
    switch value {
    case .dictionary(let dictionary):
        return dictionary.keys.sorted().flatMap { nested in dictionary[nested].map { pairs("\(key)[\(nested)]", $0) } ?? [] }
    case .array(let values):
        return values.flatMap { pairs("\(key)[]", $0) }
    default:
        return [Pair(key, Library.scalarText(value))]
    }
}

private func value(_ input: inout FuzzInput, depth: Int, budget: inout Int) -> ParameterValue {
    budget -= 1
    switch input.choice(budget > 0 && depth < 4 ? 8 : 6) {
    case 0: return .string(input.text())
    case 1: return .int(Int(input.int64()))
    case 2:
        let double = Double(bitPattern: UInt64(bitPattern: input.int64()))
        return .double(double.isFinite ? double : 0.5)
    case 3: return .bool(input.bool())
    case 4: return .null
    case 5: return .date(Date(timeIntervalSince1970: Double(input.int64() % 100_000_000_000)))
    case 6: return .array((0..<input.choice(4)).map { _ in value(&input, depth: depth + 1, budget: &budget) })
    default:
        var dictionary: [String: ParameterValue] = [:]
        for _ in 0..<input.choice(4) { dictionary[input.text()] = value(&input, depth: depth + 1, budget: &budget) }
        return .dictionary(dictionary)
    }
}

/// Whether parsed JSON stands for `value` (numbers compared as numbers, dates as their text).
private func matches(_ object: Any, _ value: ParameterValue) -> Bool {
    switch value {
    case .string(let string): return (object as? String) == string
    case .date: return (object as? String) == Library.scalarText(value)
    case .null: return object is NSNull
    case .bool(let bool): return (object as? NSNumber)?.boolValue == bool
    case .int(let int):
        guard let number = object as? NSNumber else { return false }
        return int.magnitude > 1 << 53 || number.doubleValue == Double(int)
    case .double(let double):
        guard let number = object as? NSNumber else { return false }
        // Foundation reads JSON numbers as decimals, whose `doubleValue` may be off in the last
        // bits: the text written is exact (shortest round-trip form), the comparison need not be.
        return number.doubleValue == double || abs(number.doubleValue - double) <= abs(double) * 1e-12
    case .array(let values):
        guard let array = object as? [Any], array.count == values.count else { return false }
        return zip(array, values).allSatisfy { matches($0, $1) }
    case .dictionary(let dictionary):
        guard let parsed = object as? [String: Any], parsed.count == dictionary.count else { return false }
        return dictionary.allSatisfy { key, nested in parsed[key].map { matches($0, nested) } == true }
    case .unsupported: return false
    }
}
