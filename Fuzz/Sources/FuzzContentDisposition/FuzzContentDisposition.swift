import FuzzSupport

@_cdecl("FuzzContentDisposition_main")
func main(_ argc: CInt, _ argv: FuzzArguments) -> CInt { runFuzzer(argc, argv, fuzzContentDisposition) }

/// `Content-Disposition` values and file names. Invariants: a suggested (or sanitized) name is
/// not empty, `.` or `..`; holds no `/`, `\`, control, format or line/paragraph-separator
/// character; does not start with `.`, `-` or white space; fits in 255 UTF-8 bytes; and
/// sanitizing it again changes nothing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContentDisposition(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let text = String(decoding: input.rest(), as: UTF8.self)
    if let name = Library.suggestedFilename(contentDisposition: text) { checkSafe(name, from: text) }
    if let name = Library.sanitizedFilename(text) { checkSafe(name, from: text) }
    return 0
}

private func checkSafe(_ name: String, from text: String) {
    let shown = "\(Invariant.show(name)) from \(Invariant.show(text))"
    Invariant.check(!name.isEmpty && name != "." && name != "..", "unusable name \(shown)")
    for scalar in name.unicodeScalars {
        Invariant.check(scalar != "/" && scalar != "\\", "path separator in \(shown)")
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator:
            Invariant.fail("invisible or control character U+\(String(scalar.value, radix: 16)) in \(shown)")
        default: break
        }
    }
    if let first = name.unicodeScalars.first {
        Invariant.check(first != "." && first != "-" && !first.properties.isWhitespace, "bad first character in \(shown)")
    }
    Invariant.check(name.utf8.count <= Library.maximumNameLength, "\(name.utf8.count) bytes: \(shown)")
    Invariant.check(Library.sanitizedFilename(name) == name, "sanitizing again changes \(shown)")
}
