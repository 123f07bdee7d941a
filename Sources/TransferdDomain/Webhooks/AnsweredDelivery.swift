import Foundation

/// What a subscriber's answer to one attempt does, to record: the attempt, the delivery as its machine leaves it, and
/// what the answer tells the delivery's endpoint (nil when nothing it does not know: a 2xx from a healthy one).
package struct AnsweredDelivery: Sendable {
    package let attempt: DeliveryAttempt
    package let delivery: Delivery
    package let action: DeliveryStateMachine.Action
    /// What the answer tells the delivery's endpoint.
    package let endpoint: EndpointReport?

    /// What an answer tells an endpoint: its key and tenant (for a row it does not have yet), the input, and the
    /// error, if the attempt failed.
    package struct EndpointReport: Sendable {
        package let key: String
        package let tenantID: Int64
        package let input: EndpointHealthMachine.Input
        package let error: String?
    }

    /// `endpoint` is the delivery's endpoint, with its state as read with the delivery's content.
    package init(
        _ delivery: Delivery,
        answer: DeliveryAnswer,
        probe: Bool = false,
        reply: String? = nil,
        endpoint: (key: String, tenantID: Int64, state: WebhookSubscription.State)? = nil,
        attemptedAt: Date,
        latency: Duration,
        now: Date,
        policy: DeliveryPolicy
    ) {
        attempt = DeliveryAttempt(
            deliveryId: delivery.rowID,
            attemptedAt: attemptedAt,
            statusCode: answer.status,
            latencyMs: Int(latency.timeInterval * 1000),
            error: answer.error,
            probe: probe,
            reply: reply
        )
        var machine = DeliveryStateMachine(delivery, policy: policy)
        // A pending delivery takes every answer; the caller sends only pending ones.
        action = (try? machine.handle(.answered(answer, probe: probe), at: now)) ?? .none
        self.delivery = machine.delivery
        let input: EndpointHealthMachine.Input? =
            switch answer {
            case .answered(let status, _) where (200..<300).contains(status): endpoint?.state == .healthy ? nil : .acknowledged
            case .answered(410, _): .gone
            default: .failed(retryAfter: answer.retryAfter, probe: probe)
            }
        self.endpoint = endpoint.flatMap { endpoint in
            input.map { EndpointReport(key: endpoint.key, tenantID: endpoint.tenantID, input: $0, error: answer.error) }
        }
    }
}
