import Foundation

/// A token bucket as a value: it fills at `rate` tokens a second up to one second's worth (at least one token), and
/// each delivery takes one. Full when new.
package struct TokenBucket: Sendable, Equatable {
    package private(set) var tokens: Double
    package private(set) var updatedAt: Date

    package init(rate: Double, at now: Date) {
        tokens = Self.capacity(rate)
        updatedAt = now
    }

    /// Takes a token at `now`, filling first; nil when one was taken, or else when the next one will be there.
    package mutating func take(rate: Double, at now: Date) -> Date? {
        tokens = min(Self.capacity(rate), tokens + max(0, now.timeIntervalSince(updatedAt)) * rate)
        updatedAt = max(updatedAt, now)
        guard tokens < 1 else {
            tokens -= 1
            return nil
        }
        return updatedAt.addingTimeInterval((1 - tokens) / rate)
    }

    private static func capacity(_ rate: Double) -> Double {
        max(1, rate)
    }
}
