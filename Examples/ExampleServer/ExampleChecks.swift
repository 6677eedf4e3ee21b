import Foundation
import Synchronization

/// What an example expects to see, checked as it runs: each check prints one line, and
/// `finish()` ends the program with status 0 only when every check passed, so a script (and CI)
/// can run an example and trust its exit code.
///
/// ```swift
/// let checks = ExampleChecks(name: "Middleware")
/// checks.expect(response.httpStatus == .ok, "the token was accepted")
/// checks.finish()   // "Middleware: all 1 checks passed", exit 0
/// ```
public final class ExampleChecks: Sendable {
    private let name: String
    private let counts = Mutex<(passed: Int, failed: [String])>((0, []))

    /// Checks reported under `name`.
    public init(name: String) { self.name = name }

    /// Records one expectation and prints `✓ description` or `✗ description`.
    @discardableResult
    public func expect(_ condition: Bool, _ description: String) -> Bool {
        counts.withLock { counts in
            if condition { counts.passed += 1 } else { counts.failed.append(description) }
        }
        print("   \(condition ? "✓" : "✗ UNEXPECTED:") \(description)")
        return condition
    }

    /// Records a failure that is not tied to a condition (e.g. a send that should have worked).
    public func fail(_ description: String) {
        expect(false, description)
    }

    /// `true` while no check has failed.
    public var allPassed: Bool { counts.withLock { $0.failed.isEmpty } }

    /// Prints the tally and exits: 0 when every check passed, 1 otherwise.
    public func finish() -> Never {
        let (passed, failed) = counts.withLock { ($0.passed, $0.failed) }
        print("")
        if failed.isEmpty {
            print("\(name): all \(passed) checks passed")
            exit(0)
        }
        print("\(name): \(failed.count) of \(passed + failed.count) checks FAILED")
        for description in failed { print("  - \(description)") }
        exit(1)
    }
}
