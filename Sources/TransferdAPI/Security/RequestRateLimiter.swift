import Foundation
import Synchronization
import TransferdDomain

/// A token bucket per API key (or, for the dashboard, per client address): `rate` requests a second on average, bursts
/// up to `burst`. A request that finds the bucket empty is refused, with how long until a token is back. Buckets that
/// have filled up again are forgotten once there are many, so that many clients cannot grow the table without bound.
package final class RequestRateLimiter: Sendable {
    private struct Bucket {
        package var tokens: Double
        package var updatedAt: Date
    }

    package let rate: Double
    package let burst: Double
    private struct Buckets {
        var byKey: [String: Bucket] = [:]
        /// The count at which full buckets are next forgotten.
        var pruneAt = RequestRateLimiter.pruneThreshold
    }

    /// Buckets kept before full ones are forgotten.
    static let pruneThreshold = 4096
    private let buckets = Mutex(Buckets())
    /// The time tokens come back by (the service's clock, which tests move by hand).
    private let clock: any WallClock

    package init(rate: Double, burst: Double, clock: any WallClock) {
        self.rate = rate
        self.burst = burst
        self.clock = clock
    }

    /// Takes a token for `key`: nil when the request may proceed, else the wait before the next token.
    package func take(for key: String) -> Duration? {
        let now = clock.now
        return buckets.withLock { buckets in
            if buckets.byKey.count >= buckets.pruneAt {
                // A bucket untouched for `burst / rate` seconds is full: forgetting it changes nothing.
                buckets.byKey = buckets.byKey.filter { now.timeIntervalSince($0.value.updatedAt) < burst / rate }
                buckets.pruneAt = max(Self.pruneThreshold, buckets.byKey.count * 2)
            }
            var bucket = buckets.byKey[key] ?? Bucket(tokens: burst, updatedAt: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now.timeIntervalSince(bucket.updatedAt)) * rate)
            bucket.updatedAt = now
            defer { buckets.byKey[key] = bucket }
            guard bucket.tokens >= 1 else { return .milliseconds(Int64((1 - bucket.tokens) / rate * 1000) + 1) }
            bucket.tokens -= 1
            return nil
        }
    }
}
