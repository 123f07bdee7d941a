import CompressNIO
import Crypto
import Foundation
import NIOCore

/// The deterministic bytes the test origin serves: byte `i` of every file depends only on `i`,
/// so tests can verify any range or digest without keeping files around.
package enum OriginContent {
    /// The content repeats with a prime period, so that no power-of-two chunk lines up with a repetition.
    package static let period = 1_048_573
    package static let pattern: [UInt8] = (0..<period).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ ($0 >> 11)) }

    package static func bytes(_ range: Range<Int>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(range.count)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let start = offset % period
            let count = min(range.upperBound - offset, period - start)
            result.append(contentsOf: pattern[start..<(start + count)])
            offset += count
        }
        return result
    }

    package static func buffer(_ range: Range<Int>) -> ByteBuffer {
        ByteBuffer(bytes: bytes(range))
    }

    /// The first `size` bytes, gzip-compressed.
    /// `size` zero bytes gzip-compressed (about a thousandth of it): a decompression bomb.
    package static func gzipZeros(size: Int) throws -> ByteBuffer {
        var zeros = ByteBuffer(repeating: 0, count: size)
        return try zeros.compress(with: .gzip)
    }

    package static func gzip(size: Int) throws -> ByteBuffer {
        var plain = buffer(0..<size)
        return try plain.compress(with: .gzip)
    }

    /// Lowercase hex SHA-256 of `data`.
    package static func sha256(of data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// Lowercase hex SHA-256 of the first `size` bytes, computed a chunk at a time.
    package static func sha256(size: Int) -> String {
        var hasher = SHA256()
        var offset = 0
        while offset < size {
            let end = min(size, offset + period)
            hasher.update(data: bytes(offset..<end))
            offset = end
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
