/// A subscriber as a client asked for it, checked: where to POST, which event types (nil: all), the secret if the
/// client chose one, and the endpoint's rate limit (nil: none).
package struct WebhookSettings: Sendable {
    package var url: String
    package var eventTypes: [EventType]?
    package var secret: WebhookSecret?
    package var maxDeliveriesPerSecond: Double?

    package init(url: String, eventTypes: [EventType]?, secret: WebhookSecret?, maxDeliveriesPerSecond: Double? = nil) {
        self.url = url
        self.eventTypes = eventTypes
        self.secret = secret
        self.maxDeliveriesPerSecond = maxDeliveriesPerSecond
    }
}
