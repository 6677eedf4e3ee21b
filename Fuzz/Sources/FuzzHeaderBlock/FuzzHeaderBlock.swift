import FuzzSupport
import HTTPTransport

@_cdecl("FuzzHeaderBlock_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzHeaderBlock) }

/// A response's header lines (the input split after each LF) as the transfer receives them.
/// Invariants: the fields and status code equal a plain reading of the lines (a status line
/// starts over only as the first line or after a complete 1xx block, elsewhere it is an ordinary
/// line; a line starting with a space or tab continues the last value, `name: value` both
/// trimmed, lines without a colon ignored); every lookup (`first`, `values`, `contains`, the subscript), for
/// each name in any case, equals filtering those fields.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaderBlock(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    var lines: [[UInt8]] = []
    var current: [UInt8] = []
    for byte in input.rest() {
        current.append(byte)
        if byte == 0x0A {
            lines.append(current)
            current = []
        }
    }
    if !current.isEmpty { lines.append(current) }

    let (headers, statusCode) = Library.receive(lines: lines)
    let (expected, expectedStatus) = plainReading(lines)
    Invariant.check(headers.fields == expected, "fields \(Invariant.show(headers.fields)), expected \(Invariant.show(expected))")
    Invariant.check(statusCode == expectedStatus, "status \(String(describing: statusCode)), expected \(String(describing: expectedStatus))")
    Invariant.check(headers.count == expected.count, "count \(headers.count) for \(expected.count) fields")
    if let statusCode { Invariant.check((0..<1_000_000_000).contains(statusCode), "status code \(statusCode)") }

    var names = Set(expected.map(\.name))
    for name in Array(names) { names.insert(name.uppercased()); names.insert(name.lowercased()) }
    names.formUnion(["Content-Length", "Set-Cookie", "location", ""])
    for name in names {
        let values = expected.filter { asciiCaseInsensitiveEquals($0.name, name) }.map(\.value)
        Invariant.check(headers.values(name) == values, "values(\(Invariant.show(name))) is \(Invariant.show(headers.values(name))), expected \(Invariant.show(values))")
        Invariant.check(headers.first(name) == values.first, "first(\(Invariant.show(name)))")
        Invariant.check(headers.contains(name) == !values.isEmpty, "contains(\(Invariant.show(name)))")
        Invariant.check(headers[name] == (values.isEmpty ? nil : values.joined(separator: ", ")), "subscript \(Invariant.show(name))")
    }
    return 0
}

/// The lines read the plain way, on bytes, decoded at the end; and the status code.
private func plainReading(_ lines: [[UInt8]]) -> (fields: [HTTPHeaders.Field], status: Int?) {
    var fields: [(name: [UInt8], value: [UInt8])] = []
    var status: Int?, inBlock = false, complete = false
    for rawLine in lines {
        var line = rawLine[...]
        while let last = line.last, last == 0x0A || last == 0x0D { line.removeLast() }
        if line.isEmpty {
            inBlock = false
            complete = status != nil
            continue
        }
        let startsOver = !inBlock && (status.map { complete && $0 < 200 } ?? true)
        if line.starts(with: Array("HTTP/".utf8)), startsOver {
            fields = []
            (status, inBlock, complete) = (plainStatus(line), true, false)
        } else if line.first == 0x20 || line.first == 0x09 {
            if !fields.isEmpty { fields[fields.count - 1].value += [0x20] + trimmed(line) }
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            fields.append((trimmed(line[..<colon]), trimmed(line[(colon + 1)...])))
        }
    }
    let read = fields.map { HTTPHeaders.Field(name: String(decoding: $0.name, as: UTF8.self), value: String(decoding: $0.value, as: UTF8.self)) }
    return (read, status)
}

/// The status code of a status line: the token after the first run of spaces, exactly 3 digits.
private func plainStatus(_ line: ArraySlice<UInt8>) -> Int? {
    let space = UInt8(ascii: " ")
    guard let firstSpace = line.firstIndex(of: space) else { return nil }
    let token = line[firstSpace...].drop { $0 == space }.prefix { $0 != space }
    guard token.count == 3, token.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
    return Int(String(decoding: token, as: UTF8.self))
}

private func trimmed(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
    guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else { return [] }
    return Array(bytes[first...last])
}

private func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    let fold = { (byte: UInt8) in byte >= 65 && byte <= 90 ? byte + 32 : byte }
    return a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { fold($0) == fold($1) }
}
