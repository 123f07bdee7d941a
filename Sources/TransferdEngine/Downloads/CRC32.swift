import CCompressZlib
import TransferdDomain

/// A running CRC-32 (the zlib/PNG/gzip polynomial), computed by zlib.
package struct CRC32 {
    private(set) var value: UInt = crc32(0, nil, 0)

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        value = crc32(value, base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count))
    }

    /// Eight lowercase hex digits.
    package var hex: String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 8 - text.count)) + text
    }
}
