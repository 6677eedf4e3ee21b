// The clock, the warm-up and the timed loops every Swift benchmark client runs, so that each
// client only says how it sends one request (returning the body size it received).
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a timed run did: operations, body bytes received (not counted for `threads`) and seconds.
public struct Timed: Sendable {
    public var operations: Int
    public var bytes: Int
    public var seconds: Double

    public init(operations: Int, bytes: Int, seconds: Double) {
        self.operations = operations
        self.bytes = bytes
        self.seconds = seconds
    }
}

/// Monotonic seconds.
public func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// How many requests to send before the clock starts (connections open, caches warm).
public func warmUpCount(_ arguments: BenchArguments) -> Int {
    switch arguments.workload {
    case .get, .post, .threads: return max(1, min(200, arguments.count / 10))
    case .download, .downloadFile, .fanout: return 1
    }
}

/// The warm-up before the clock starts: for `threads`, `get` on every thread; otherwise `post`
/// (for `post`) or `get`, one after the other.
public func warmUp(_ arguments: BenchArguments, get: @escaping @Sendable () -> Void, post: () -> Void) {
    let count = warmUpCount(arguments)
    if arguments.workload == .threads {
        _ = runOnThreads(arguments.threads) { _ in for _ in 0..<count { get() } }
    } else {
        for _ in 0..<count { arguments.workload == .post ? post() : get() }
    }
}

/// `warmUp` for a client that awaits: for `threads`, that many concurrent tasks.
public func warmUpAwaiting(_ arguments: BenchArguments, get: @escaping @Sendable () async -> Void,
                           post: () async -> Void) async {
    let count = warmUpCount(arguments)
    if arguments.workload == .threads {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<arguments.threads {
                group.addTask { for _ in 0..<count { await get() } }
            }
        }
    } else {
        for _ in 0..<count { arguments.workload == .post ? await post() : await get() }
    }
}

/// Times `count` calls of `send` one after the other; `send` returns the body size received.
@inlinable
public func timeSequential(_ count: Int, _ send: () -> Int) -> Timed {
    var bytes = 0
    let start = now()
    for _ in 0..<count { bytes += send() }
    return Timed(operations: count, bytes: bytes, seconds: now() - start)
}

/// Times `count` awaited calls of `send` one after the other.
@inlinable
public func timeAwaited(_ count: Int, _ send: () async -> Int) async -> Timed {
    var bytes = 0
    let start = now()
    for _ in 0..<count { bytes += await send() }
    return Timed(operations: count, bytes: bytes, seconds: now() - start)
}

/// Times `threads` threads, released together, each calling `send` `perThread` times.
public func timeOnThreads(_ threads: Int, perThread: Int, _ send: @escaping @Sendable () -> Int) -> Timed {
    let seconds = runOnThreads(threads) { _ in for _ in 0..<perThread { _ = send() } }
    return Timed(operations: threads * perThread, bytes: 0, seconds: seconds)
}

/// Times `tasks` concurrent tasks, each awaiting `send` `perTask` times in turn.
public func timeTasks(_ tasks: Int, perTask: Int, _ send: @escaping @Sendable () async -> Int) async -> Timed {
    let start = now()
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
            group.addTask { for _ in 0..<perTask { _ = await send() } }
        }
    }
    return Timed(operations: tasks * perTask, bytes: 0, seconds: now() - start)
}

/// Times `count` concurrent tasks of one task group, each calling `send` once (the fan-out
/// workload); the bytes are the sum of what they return.
public func timeFanOut(_ count: Int, _ send: @escaping @Sendable () async -> Int) async -> Timed {
    let start = now()
    let bytes = await withTaskGroup(of: Int.self) { group in
        for _ in 0..<count { group.addTask { await send() } }
        return await group.reduce(0, +)
    }
    return Timed(operations: count, bytes: bytes, seconds: now() - start)
}

/// `timeFanOut` for a client whose top level is synchronous: waits on the calling thread.
public func timeFanOutWaiting(_ count: Int, _ send: @escaping @Sendable () async -> Int) -> Timed {
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        outcome.timed = await timeFanOut(count, send)
        done.signal()
    }
    done.wait()
    return outcome.timed
}

/// `timeAwaited` for a client whose top level is synchronous: waits on the calling thread.
public func timeAwaitedWaiting(_ count: Int, _ send: @escaping @Sendable () async -> Int) -> Timed {
    waiting { await timeAwaited(count, send) }
}

/// `timeTasks` for a client whose top level is synchronous: waits on the calling thread.
public func timeTasksWaiting(_ tasks: Int, perTask: Int, _ send: @escaping @Sendable () async -> Int) -> Timed {
    waiting { await timeTasks(tasks, perTask: perTask, send) }
}

private func waiting(_ body: @escaping @Sendable () async -> Timed) -> Timed {
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        outcome.timed = await body()
        done.signal()
    }
    done.wait()
    return outcome.timed
}

/// What the task of `timeFanOutWaiting` hands to the waiting thread (after the semaphore).
private final class Outcome: @unchecked Sendable {
    var timed = Timed(operations: 0, bytes: 0, seconds: 0)
}

/// Runs `body(thread)` on `threads` new threads released together; returns the seconds from the
/// release until the last one finished.
public func runOnThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) -> Double {
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for thread in 0..<threads {
        done.enter()
        let worker = Thread {
            ready.signal()
            go.wait()
            body(thread)
            done.leave()
        }
        worker.stackSize = 1 << 20
        worker.start()
    }
    for _ in 0..<threads { ready.wait() }
    let start = now()
    for _ in 0..<threads { go.signal() }
    done.wait()
    return now() - start
}
