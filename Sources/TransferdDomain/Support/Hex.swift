/// Lowercase hexadecimal: of bytes (the digests that `sha256` fields show), and of random bytes from the system's
/// generator (API tokens, webhook message ids). Foundation's `UUID()` opens, reads and closes `/dev/urandom` on
/// every call on Linux, a tenth of the writer's time when a batch of tasks queued its webhook deliveries; the
/// generator takes eight bytes a call.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    package static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `count` random bytes as 2 × `count` digits.
    package static func random(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return string(bytes.prefix(count))
    }
}
