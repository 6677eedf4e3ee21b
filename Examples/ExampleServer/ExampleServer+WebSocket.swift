// The example server's WebSocket (RFC 6455) side, just enough for a feed: the upgrade, text
// frames out, and the close handshake.
import COpenSSLDigest
import Foundation

extension ExampleServer.Response {
    /// Upgrades the request's connection to a WebSocket that `session` then runs (on the
    /// connection's thread); a request that asks for no upgrade gets a 400.
    public static func webSocket(for request: ExampleServer.Request,
                                 _ session: @escaping @Sendable (ExampleServer.WebSocketPeer) -> Void) -> Self {
        guard request.header("upgrade")?.lowercased() == "websocket", let key = request.header("sec-websocket-key") else {
            return .text("This endpoint speaks WebSocket only.", status: 400)
        }
        let digest = Data("\(key)258EAFA5-E914-47DA-95CA-C5AB0DC85B11".utf8).withUnsafeBytes { bytes in
            var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
            SHA1(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &digest)
            return Data(digest)
        }
        var response = Self(status: 101, headers: [("Upgrade", "websocket"), ("Connection", "Upgrade"),
                                                   ("Sec-WebSocket-Accept", digest.base64EncodedString())])
        response.webSocket = session
        return response
    }
}

extension ExampleServer {
    /// The server's end of a WebSocket: text messages out, then the close handshake.
    public struct WebSocketPeer: Sendable {
        let connection: Int32

        /// Sends one text message; false once the client is gone.
        public func send(text: String) -> Bool { send(opcode: 0x1, Data(text.utf8)) }

        /// Sends a close frame with `code`, then reads the client's frames until its close frame
        /// (or the end of the connection).
        public func close(code: UInt16 = 1000) {
            guard send(opcode: 0x8, Data([UInt8(code >> 8), UInt8(code & 0xFF)])) else { return }
            while let opcode = readFrame(), opcode != 0x8 {}
        }

        private func send(opcode: UInt8, _ payload: Data) -> Bool {
            var frame = Data([0x80 | opcode])
            switch payload.count {
            case ..<126: frame.append(UInt8(payload.count))
            case ..<65536: frame.append(contentsOf: [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)])
            default: frame.append(127); frame.append(contentsOf: (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) })
            }
            frame.append(payload)
            var sent = 0
            while sent < frame.count {
                let count = frame.withUnsafeBytes { Foundation.send(connection, $0.baseAddress.map { $0 + sent }, frame.count - sent, Int32(MSG_NOSIGNAL)) }
                if count <= 0 { return false }
                sent += count
            }
            return true
        }

        /// Reads one frame (a client's frames are masked) and returns its opcode; nil at the end.
        private func readFrame() -> UInt8? {
            guard let head = read(2) else { return nil }
            var length = Int(head[1] & 0x7F)
            if length == 126, let extended = read(2) { length = extended.reduce(0) { $0 << 8 | Int($1) } }
            if length == 127, let extended = read(8) { length = extended.reduce(0) { $0 << 8 | Int($1) } }
            guard length < 1 << 24, read((head[1] & 0x80 != 0 ? 4 : 0) + length) != nil else { return nil }
            return head[0] & 0x0F
        }

        private func read(_ count: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let received = bytes.withUnsafeMutableBytes { recv(connection, $0.baseAddress.map { $0 + got }, count - got, 0) }
                if received <= 0 { return nil }
                got += received
            }
            return bytes
        }
    }
}
