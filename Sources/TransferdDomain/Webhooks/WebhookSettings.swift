/// A subscriber as a client asked for it, checked: where to POST, which event types (nil: all), and the secret if
/// the client chose one.
package struct WebhookSettings: Sendable {
    package var url: String
    package var eventTypes: [EventType]?
    package var secret: WebhookSecret?

    package init(url: String, eventTypes: [EventType]?, secret: WebhookSecret?) {
        self.url = url
        self.eventTypes = eventTypes
        self.secret = secret
    }
}
