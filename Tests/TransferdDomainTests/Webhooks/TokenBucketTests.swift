import Foundation
import Testing
import TransferdDomain

/// A rate limit's bucket: a second's worth of tokens at first, then one every 1/rate seconds.
@Suite struct TokenBucketTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aSecondsWorthGoesAtOnceThenOneEveryFifthOfASecond() {
        var bucket = TokenBucket(rate: 5, at: Self.now)

        let first = (0..<5).map { _ in bucket.take(rate: 5, at: Self.now) }
        let sixth = bucket.take(rate: 5, at: Self.now)
        let later = bucket.take(rate: 5, at: Self.now + 0.2)
        let tooSoon = bucket.take(rate: 5, at: Self.now + 0.3)

        #expect(first == [nil, nil, nil, nil, nil])
        #expect(sixth == Self.now + 0.2)
        #expect(later == nil)
        #expect(tooSoon.map { abs($0.timeIntervalSince(Self.now + 0.4)) < 1e-6 } == true)
    }

    @Test func aSlowRateHoldsOneTokenAndAnIdleBucketFillsOnlyToItsCapacity() {
        var bucket = TokenBucket(rate: 0.5, at: Self.now)

        #expect(bucket.take(rate: 0.5, at: Self.now) == nil)
        #expect(bucket.take(rate: 0.5, at: Self.now) == Self.now + 2)
        #expect(bucket.take(rate: 0.5, at: Self.now + 3600) == nil, "an hour idle fills one token, not 1,800")
        #expect(bucket.take(rate: 0.5, at: Self.now + 3600) != nil)
    }
}
