/// What one attempt of a delivery sends and where: its event, its session's identifier, the session's subscriber and
/// the event's task as it is now (nil for a session's own event, or a task that is gone).
package struct DeliveryContent: Sendable {
    package let event: Event
    package let sessionIdentifier: String
    package let webhook: WebhookSubscription
    /// The task as the API shows it, for the events whose deliveries carry it (``taskCarrying``); nil otherwise.
    package let task: TransferTask?

    /// The events whose deliveries carry their task, so that a subscriber can act on its end without calling back.
    package static let taskCarrying: [EventType] = [.taskFinishedDownloading, .taskCompleted]

    package init(event: Event, sessionIdentifier: String, webhook: WebhookSubscription, task: TransferTask?) {
        self.event = event
        self.sessionIdentifier = sessionIdentifier
        self.webhook = webhook
        self.task = task
    }
}
