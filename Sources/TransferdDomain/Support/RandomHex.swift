/// Random lowercase hexadecimal from the system's generator, for identifiers that must not repeat. Foundation's
/// `UUID()` opens, reads and closes `/dev/urandom` on every call on Linux: a tenth of the writer's time when a
/// batch of tasks queues its webhook deliveries.
package enum RandomHex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `words` × 64 random bits as 16 × `words` hexadecimal digits.
    package static func string(words: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String(unsafeUninitializedCapacity: words * 16) { text in
            for word in 0..<words {
                let bits: UInt64 = generator.next()
                for digit in 0..<16 {
                    text[word * 16 + digit] = digits[Int(truncatingIfNeeded: bits >> (60 - 4 * digit)) & 0xF]
                }
            }
            return words * 16
        }
    }
}
