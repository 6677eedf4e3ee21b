#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Broken invariants: a target calls `Invariant.check` for each property beyond "no crash";
/// a false one prints what broke and aborts, which libFuzzer reports as a crash and saves the
/// input that caused it.
public enum Invariant {
    public static func check(_ condition: Bool, _ message: @autoclosure () -> String,
                             file: StaticString = #fileID, line: UInt = #line) {
        guard !condition else { return }
        fail("\(file):\(line): \(message())")
    }

    public static func fail(_ message: String) -> Never {
        // Straight to the descriptor: no stdio buffer to flush before the abort.
        let text = Array(("INVARIANT BROKEN: " + message + "\n").utf8)
        _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        abort()
    }

    /// A value as a Swift literal would show it, so a report makes invisible characters plain.
    public static func show<Value>(_ value: Value) -> String {
        String(reflecting: value)
    }
}
