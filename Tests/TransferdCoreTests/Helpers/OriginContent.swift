import Crypto
import Foundation
import NIOCore

/// The deterministic bytes the test origin serves: byte `i` of every file depends only on `i`,
/// so tests can verify any range or digest without keeping files around.
enum OriginContent {
    static func byte(at offset: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: offset &* 7 &+ (offset >> 11))
    }

    static func bytes(_ range: Range<Int>) -> [UInt8] {
        range.map(byte(at:))
    }

    static func buffer(_ range: Range<Int>) -> ByteBuffer {
        ByteBuffer(bytes: bytes(range))
    }

    /// Lowercase hex SHA-256 of the first `size` bytes, computed a chunk at a time.
    static func sha256(size: Int) -> String {
        var hasher = SHA256()
        var offset = 0
        while offset < size {
            let end = min(size, offset + (1 << 20))
            hasher.update(data: bytes(offset..<end))
            offset = end
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
