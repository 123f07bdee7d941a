import Synchronization
import TransferdDomain
import TransferdEngine
import TransferdServices

/// A token bucket per API key: `rate` requests a second on average, bursts up to `burst`. A request that finds the
/// bucket empty is refused, with how long until a token is back.
package final class RequestRateLimiter: Sendable {
    private struct Bucket {
        package var tokens: Double
        package var updatedAt: ContinuousClock.Instant
    }

    package let rate: Double
    package let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])

    package init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
    }

    /// Takes a token for `key`: nil when the request may proceed, else the wait before the next token.
    package func take(for key: String) -> Duration? {
        let now = ContinuousClock.now
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updatedAt: now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updatedAt).timeInterval * rate)
            bucket.updatedAt = now
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return .milliseconds(Int64((1 - bucket.tokens) / rate * 1000) + 1) }
            bucket.tokens -= 1
            return nil
        }
    }
}
