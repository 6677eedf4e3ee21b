import Foundation
import XCTest

/// A real server from Debian's packages (nginx, tinyproxy, microsocks) run by a test on
/// loopback: its configuration, logs and sockets live in a fresh temporary directory, it runs
/// in the foreground as this process's child (no system service, root or not), and `stop()`
/// ends exactly that process. A missing binary is a failure that says to run scripts/setup.sh.
final class PeerProcess: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let name: String
    let directory: URL
    /// The child's process id, once started (guarded by `lock`). Spawned with `posix_spawn`, not
    /// Foundation's `Process`, whose exit monitoring keeps state alive past `waitUntilExit()`
    /// (LeakSanitizer then reports it) and needs the stopping thread's run loop.
    private var pid: pid_t?
    private var exited = false
    private let lock = NSLock()

    /// Makes the peer's temporary directory; `start` runs it.
    init(name: String) throws {
        self.name = name
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("httptransport-\(name)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The first of `candidates` that exists and is executable.
    static func binary(_ candidates: [String], package: String) throws -> String {
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) { return path }
        throw Failure(description: "\(candidates[0]) is missing: run scripts/setup.sh (it installs the Debian package \(package)).")
    }

    func path(_ file: String) -> String { directory.appendingPathComponent(file).path }

    func write(_ file: String, _ text: String) throws {
        try text.write(toFile: path(file), atomically: true, encoding: .utf8)
    }

    /// Runs `executable` with its output in `output.log`, then waits (at most 10 s) until
    /// `ready` says it serves.
    func start(_ executable: String, _ arguments: [String], ready: () -> Bool) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, path("output.log"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let code = posix_spawn(&child, executable, &actions, nil, argv, environ)
        guard code == 0 else { throw Failure(description: "\(name) could not be started: \(String(cString: strerror(code)))") }
        lock.withLock { pid = child }
        let deadline = Date().addingTimeInterval(10)
        while !ready() {
            guard isRunning, Date() < deadline else {
                let log = (try? String(contentsOfFile: path("output.log"), encoding: .utf8)) ?? ""
                stop()
                throw Failure(description: "\(name) did not start serving within 10 s. Its output:\n\(log)")
            }
            usleep(20_000)
        }
    }

    /// Whether the child still runs (reaping it once it ended).
    private var isRunning: Bool {
        lock.withLock {
            guard let pid, !exited else { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { exited = true }
            return !exited
        }
    }

    /// Ends the process this peer started (by its PID: SIGTERM, then SIGKILL after 10 s) and
    /// removes its directory.
    func stop() {
        lock.withLock {
            guard let pid, !exited else { return }
            kill(pid, SIGTERM)
            var status: Int32 = 0
            for _ in 0..<1_000 {  // 10 s
                if waitpid(pid, &status, WNOHANG) == pid {
                    exited = true
                    return
                }
                usleep(10_000)
            }
            kill(pid, SIGKILL)
            _ = waitpid(pid, &status, 0)
            exited = true
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends `signal` to the process (`SIGSTOP` freezes it: it still accepts connections, as the
    /// kernel does that, but answers nothing until `SIGCONT`).
    func send(_ signal: Int32) {
        lock.withLock {
            guard let pid, !exited else { return }
            kill(pid, signal)
        }
    }

    /// The text of one of the peer's files (a log). (Read with read(2): Foundation's file reader
    /// leaked its 4 KiB buffer once under LeakSanitizer, reading a log nginx was writing.)
    func read(_ file: String) -> String {
        let descriptor = open(path(file), O_RDONLY)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Waits (at most 5 s) until `file` contains `text`: servers write their access log after
    /// the response has left, so a test that just got its response may be ahead of the log.
    @discardableResult
    func waitFor(_ text: String, in file: String) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !read(file).contains(text) {
            guard Date() < deadline else { return false }
            usleep(20_000)
        }
        return true
    }

    /// Whether something accepts TCP connections on `host:port`.
    static func accepts(host: String, port: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICHOST
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let info = result else { return false }
        defer { freeaddrinfo(result) }
        let descriptor = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0
    }

    /// Whether something accepts connections on the Unix socket at `path`.
    static func accepts(unixSocket path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}

/// Sets environment variables for the duration of `body`, then restores them (XCTest runs a
/// class's tests one at a time, so no other test sees them).
func withEnvironment<T>(_ values: [String: String?], _ body: () throws -> T) rethrows -> T {
    var saved: [String: String?] = [:]
    for (name, value) in values {
        // (updateValue: assigning a nil `String?` through the subscript would remove the key.)
        saved.updateValue(getenv(name).map { String(cString: $0) }, forKey: name)
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
    defer {
        for (name, value) in saved {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
    }
    return try body()
}

/// Every proxy variable libcurl reads, unset (a test sets the ones it needs on top).
let noProxyEnvironment: [String: String?] = [
    "http_proxy": nil, "https_proxy": nil, "HTTPS_PROXY": nil, "all_proxy": nil, "ALL_PROXY": nil,
    "no_proxy": nil, "NO_PROXY": nil,
]

/// A peer started by the first test that needs it and stopped when its test class ends
/// (`override class func tearDown() { peer.stop() }`). A failed start is remembered, so every
/// test that needs the peer fails with the same message.
final class SharedPeer<Peer>: @unchecked Sendable {
    private let state = Protected<Result<Peer, any Error>?>(nil)
    private let make: () throws -> Peer
    private let end: (Peer) -> Void

    init(_ make: @escaping () throws -> Peer, stop: @escaping (Peer) -> Void) {
        self.make = make
        end = stop
    }

    func get() throws -> Peer {
        let result = state.withLock { stored -> Result<Peer, any Error> in
            if let stored { return stored }
            let made = Result { try make() }
            stored = made
            return made
        }
        return try result.get()
    }

    func stop() {
        state.withLock { stored in
            if case .success(let peer)? = stored { end(peer) }
            stored = nil
        }
    }
}
