import Foundation
import Testing
import TransferdDomain

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
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:50:37 GMT", now: now) == .seconds(60))
        #expect(RetryAfter.parse("soon", now: now) == nil)
        #expect(RetryAfter.parse(nil, now: now) == nil)
    }

    /// HTTP dates in the three forms RFC 9110 has recipients read, and IMF-fixdate written; impossible dates refused.
    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0), ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
        ("Sun Nov  6 08:49:37 1994", 784_111_777), ("Thu, 01 Jan 1970 00:00:00 GMT", 0), ("Tue, 29 Feb 2000 23:59:59 GMT", 951_868_799),
        ("Wed, 25 Nov 2026 15:00:00 GMT", 1_795_618_800),
    ])
    func anHTTPDateIsReadInEveryForm(text: String, seconds: Double) {
        let date = HTTPDate.date(from: text)
        #expect(date == Date(timeIntervalSince1970: seconds))
        if text.hasSuffix("GMT"), text.contains(", "), !text.contains("-") {
            #expect(HTTPDate.string(from: Date(timeIntervalSince1970: seconds)) == text)
        }
    }

    @Test(arguments: [
        "Mon, 29 Feb 2001 00:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, +6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "", "120",
    ])
    func anImpossibleHTTPDateIsRefused(text: String) {
        #expect(HTTPDate.date(from: text) == nil)
    }
}
