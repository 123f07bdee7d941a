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

@Suite struct MessageIDTests {
    @Test func aDeliveryIsNamedByMessageAndOneHundredTwentyEightRandomBits() {
        var event = Event(sessionId: 1, sequence: 1, type: .taskCreated, taskIdentifier: 1, data: EventData(), createdAt: Date())
        event.id = 1
        let identifiers = (0..<1000).map { _ in Delivery(pending: event).messageId }
        #expect(identifiers.allSatisfy { $0.wholeMatch(of: /msg_[0-9a-f]{32}/) != nil })
        #expect(Set(identifiers).count == identifiers.count)
        // every digit position takes more than one value: no word is left unfilled
        for position in 4..<36 {
            let digits = Set(identifiers.map { $0.utf8[$0.utf8.index($0.utf8.startIndex, offsetBy: position)] })
            #expect(digits.count > 1, "digit \(position)")
        }
    }
}
