/// What one attempt of a delivery sends and where: its event, its session's identifier, the session's subscriber and
/// the event's task as it is now (nil for a session's own event, or a task that is gone).
package struct DeliveryContent: Sendable {
    package let event: Event
    package let sessionIdentifier: String
    package let webhook: WebhookSubscription
    package let task: TransferTask?

    package init(event: Event, sessionIdentifier: String, webhook: WebhookSubscription, task: TransferTask?) {
        self.event = event
        self.sessionIdentifier = sessionIdentifier
        self.webhook = webhook
        self.task = task
    }
}
