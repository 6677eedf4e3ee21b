/// An engine that keeps a pool of connection handles answers how many are idle (for the
/// session's metrics). Another engine (a stub, a replay) has no pool.
protocol PoolStatistics: Sendable {
    var idleHandleCount: Int { get }
}
