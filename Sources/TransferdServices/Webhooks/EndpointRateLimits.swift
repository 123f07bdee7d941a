import Foundation
import Synchronization
import TransferdDomain

/// This instance's token buckets, one per rate-limited endpoint (`webhook.maxDeliveriesPerSecond`), shared by every
/// session that points at it. Each instance keeps its own: N instances may send an endpoint up to N times its rate.
package final class EndpointRateLimits: Sendable {
    private let buckets = Mutex<[String: TokenBucket]>([:])

    package init() {}

    /// Takes a token of `key`'s bucket at `now`; nil when one was taken (or the endpoint has no limit), or else when
    /// the next one will be there.
    package func take(_ key: String?, rate: Double?, at now: Date) -> Date? {
        guard let key, let rate else { return nil }
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? TokenBucket(rate: rate, at: now)
            defer { buckets[key] = bucket }
            return bucket.take(rate: rate, at: now)
        }
    }
}
