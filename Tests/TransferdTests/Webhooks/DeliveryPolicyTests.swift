import Foundation
import NIOHTTP1
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage

@testable import TransferdAPI
@testable import transferd

@Suite struct DeliveryPolicyTests {
    @Test func followsTheSvixScheduleThenGivesUp() {
        let policy = DeliveryPolicy(jitter: 0)
        let waits = (1...7).map { policy.delay(afterFailedAttempts: $0, retryAfter: nil) }
        #expect(waits == [5, 300, 1800, 7200, 18000, 36000, 36000].map { .seconds($0) })
        #expect(policy.delay(afterFailedAttempts: 8, retryAfter: nil) == nil)
    }

    @Test func jitterSpreadsEachWaitWithinItsBounds() {
        let policy = DeliveryPolicy(jitter: 0.2)
        #expect(policy.delay(afterFailedAttempts: 1, retryAfter: nil, random: -1) == .seconds(4))
        #expect(policy.delay(afterFailedAttempts: 1, retryAfter: nil, random: 1) == .seconds(6))
    }

    @Test func aLongerRetryAfterWinsUpToItsCap() {
        let policy = DeliveryPolicy(jitter: 0, maximumRetryAfter: .seconds(60))
        #expect(policy.delay(afterFailedAttempts: 1, retryAfter: .seconds(30)) == .seconds(30))
        #expect(policy.delay(afterFailedAttempts: 1, retryAfter: .seconds(1)) == .seconds(5))
        #expect(policy.delay(afterFailedAttempts: 1, retryAfter: .seconds(999)) == .seconds(60))
    }

    @Test func retryAfterIsReadAsSecondsOrAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.parse(HTTPHeaders([("Retry-After", "120")]), now: now) == .seconds(120))
        #expect(RetryAfter.parse(HTTPHeaders([("Retry-After", "Sun, 06 Nov 1994 08:50:37 GMT")]), now: now) == .seconds(60))
        #expect(RetryAfter.parse(HTTPHeaders([("Retry-After", "soon")]), now: now) == nil)
        #expect(RetryAfter.parse(HTTPHeaders(), now: now) == nil)
    }
}
