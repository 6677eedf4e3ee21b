// websocket.sh: echo round trips over HTTPTransport's WebSockets, from N sockets at once, each
// running its round trips one after the other. Prints one line: sockets, round trips, wall
// seconds, round trips per second, CPU microseconds per message (user + system of the whole
// process during the round trips, handshakes excluded).
//
//   WebSocketEcho ws://127.0.0.1:PORT/echo SOCKETS ROUND_TRIPS_PER_SOCKET BYTES
import Foundation
import HTTPTransport

let arguments = CommandLine.arguments
guard arguments.count == 5, let sockets = Int(arguments[2]), let perSocket = Int(arguments[3]), let bytes = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: WebSocketEcho URL SOCKETS ROUND_TRIPS_PER_SOCKET BYTES\n".utf8))
    exit(2)
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let transport = HTTPTransport()
let payload = Data(repeating: 0x61, count: bytes)
var open: [WebSocket] = []
for _ in 0..<sockets { open.append(try await transport.webSocket(HTTPRequest(endpoint: arguments[1]))) }
let cpuStart = cpuSeconds()
let start = ContinuousClock.now
try await withThrowingTaskGroup(of: Void.self) { group in
    for socket in open {
        group.addTask {
            for _ in 0..<perSocket {
                try await socket.send(.binary(payload))
                guard case .binary(let echoed) = try await socket.receive(), echoed.count == bytes else {
                    throw HTTPTransportError(code: .badResponse, message: "wrong echo")
                }
            }
        }
    }
    try await group.waitForAll()
}
let wall = (ContinuousClock.now - start) / .seconds(1)
let cpu = cpuSeconds() - cpuStart
let total = sockets * perSocket
print(String(format: "%d %d %.3f %.0f %.1f", sockets, total, wall, Double(total) / wall, cpu / Double(total) * 1e6))
for socket in open { try await socket.close() }
