extension [UInt8] {
    /// Appends `value` in decimal digits, zero-padded to at least `width` of them.
    package mutating func appendDecimal(_ value: UInt64, width: Int = 1) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var remaining = value
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(truncatingIfNeeded: remaining % 10) &+ UInt8(ascii: "0")
                remaining /= 10
            } while remaining > 0
            for _ in 0..<Swift.max(0, width - (digits.count - start)) {
                append(UInt8(ascii: "0"))
            }
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
