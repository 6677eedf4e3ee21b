import Foundation

/// The per-origin states a session remembers, bounded: an origin whose state is the same as a
/// new one's (full bucket, closed circuit without failures, no pause) is forgotten when the
/// table grows. Forgetting scans the table, so it runs only when the table has doubled since the
/// last scan: each send pays a constant share (a crawler meeting 16k origins scans each a few
/// times, never once per send), and the table holds at most twice the origins whose state
/// still matters, or `forgetIdleAbove`, whichever is more.
struct OriginTable: Sendable {
    typealias State = OriginGuard.OriginState

    /// Origins remembered before idle ones are forgotten.
    static let forgetIdleAbove = 1_024

    private var states: [Origin: State] = [:]
    /// The count at which the next scan runs.
    private var scanAt = Self.forgetIdleAbove
    /// States looked at by scans so far (tests check the cost stays linear).
    private(set) var scanned = 0

    var count: Int { states.count }

    subscript(origin: Origin) -> State? {
        get { states[origin] }
        set { states[origin] = newValue }
    }

    /// Before a new origin goes in: forgets the idle ones if the table has grown enough.
    mutating func makeRoom(now: TimeInterval) {
        guard states.count >= scanAt else { return }
        scanned += states.count
        states = states.filter { !$0.value.isIdle(now: now) }
        scanAt = max(Self.forgetIdleAbove, 2 * states.count)
    }
}
