import Foundation
import Testing
import TransferdDomain

/// What each kind of answer does to its delivery and its subscriber's health: the table the dispatcher applies.
@Suite struct AnsweredDeliveryTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let answer: DeliveryAnswer
        /// Failed attempts before this one.
        let earlierAttempts: Int
        let status: Delivery.Status
        let health: WebhookSubscription.State
        /// Whether the delivery waits for another attempt after `now`.
        let retried: Bool

        var testDescription: String { "\(answer) after \(earlierAttempts) attempts" }
    }

    static let rows: [Row] = [
        Row(answer: .answered(status: 204, retryAfter: nil), earlierAttempts: 0, status: .delivered, health: .healthy, retried: false),
        Row(answer: .answered(status: 200, retryAfter: nil), earlierAttempts: 7, status: .delivered, health: .healthy, retried: false),
        Row(answer: .answered(status: 410, retryAfter: nil), earlierAttempts: 0, status: .failed, health: .disabled, retried: false),
        Row(answer: .answered(status: 500, retryAfter: nil), earlierAttempts: 0, status: .pending, health: .retrying, retried: true),
        Row(
            answer: .answered(status: 503, retryAfter: .seconds(60)),
            earlierAttempts: 1,
            status: .pending,
            health: .retrying,
            retried: true
        ),
        Row(answer: .failed("refused"), earlierAttempts: 0, status: .pending, health: .retrying, retried: true),
        Row(answer: .answered(status: 500, retryAfter: nil), earlierAttempts: 7, status: .failed, health: .retrying, retried: false),
        Row(answer: .failed("refused"), earlierAttempts: 7, status: .failed, health: .retrying, retried: false),
    ]

    @Test(arguments: rows)
    func anAnswerLeavesItsDelivery(_ row: Row) {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let delivery = Delivery(
            id: 9,
            sessionId: 1,
            eventId: 2,
            sequence: 3,
            eventType: .taskCreated,
            messageId: "msg_1",
            status: .pending,
            attemptCount: row.earlierAttempts,
            nextAttemptAt: now,
            createdAt: now
        )

        let answered = AnsweredDelivery(
            delivery,
            answer: row.answer,
            attemptedAt: now,
            latency: .milliseconds(12),
            now: now,
            policy: DeliveryPolicy(jitter: 0)
        )

        #expect(answered.delivery.status == row.status)
        #expect(answered.health == row.health)
        #expect(answered.delivery.attemptCount == row.earlierAttempts + 1)
        #expect((answered.delivery.nextAttemptAt > now) == row.retried)
        #expect((answered.delivery.completedAt != nil) == (row.status != .pending))
        #expect((answered.delivery.lastError == nil) == (row.status == .delivered))
        #expect(answered.attempt.deliveryId == 9 && answered.attempt.latencyMs == 12 && answered.attempt.statusCode == row.answer.status)
    }
}
