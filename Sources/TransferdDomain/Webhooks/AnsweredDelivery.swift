import Foundation

/// What a subscriber's answer to one attempt does, to record: the attempt, the delivery as the answer leaves it,
/// and the subscriber's health. A 2xx delivers; 410 Gone fails the delivery and disables the subscriber; any
/// other answer, or none, is retried on the policy's schedule until it gives up.
package struct AnsweredDelivery: Sendable {
    package let attempt: DeliveryAttempt
    package let delivery: Delivery
    package let health: WebhookSubscription.State

    package init(_ delivery: Delivery, answer: DeliveryAnswer, attemptedAt: Date, latency: Duration, now: Date, policy: DeliveryPolicy) {
        attempt = DeliveryAttempt(
            deliveryId: delivery.rowID,
            attemptedAt: attemptedAt,
            statusCode: answer.status,
            latencyMs: Int(latency.timeInterval * 1000),
            error: answer.error
        )
        var answered = delivery
        answered.attemptCount += 1
        switch answer {
        case .answered(let status, _) where (200..<300).contains(status):
            answered.status = .delivered
            answered.completedAt = now
            answered.lastError = nil
            health = .healthy
        case .answered(410, _):
            answered.status = .failed
            answered.completedAt = now
            answered.lastError = "The subscriber answered 410 Gone; the webhook is disabled."
            health = .disabled
        default:
            answered.lastError = answer.error ?? "The subscriber answered \(answer.status ?? 0)."
            health = .retrying
            if let delay = policy.delay(afterFailedAttempts: answered.attemptCount, retryAfter: answer.retryAfter) {
                answered.nextAttemptAt = now.addingTimeInterval(delay.timeInterval)
            } else {
                answered.status = .failed
                answered.completedAt = now
            }
        }
        self.delivery = answered
    }
}
