import COpenSSLDigest
import Foundation

/// SHA-256 through OpenSSL's libcrypto (for the package's other modules too).
package enum SHA256Digest {
    /// The 32-byte digest of `data`.
    package static func bytes(of data: some DataProtocol & ContiguousBytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        data.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA256(input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, output.baseAddress)
            }
        }
        return digest
    }

    /// The digest of `data` as lower-case hex.
    package static func hex(of data: some DataProtocol & ContiguousBytes) -> String {
        hex(bytes(of: data))
    }

    /// Lower-case hex of `bytes`.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
