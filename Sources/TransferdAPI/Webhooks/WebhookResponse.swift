import Foundation
import Hummingbird
import TransferdDomain

/// A session's subscriber as the API shows it. The secret appears once, in the response that generated or
/// rotated it; afterwards only its last characters (`secretHint`).
struct WebhookResponse: ResponseEncodable, Sendable {
    var url: String
    var events: [EventType]?
    var state: WebhookSubscription.State
    var secretHint: String
    var secret: String?
    var maxDeliveriesPerSecond: Double?
    /// Why the endpoint's last failed attempt failed.
    var lastError: String?
    /// Until when the secret before the last rotation still signs deliveries.
    var previousSecretExpiresAt: Date?
    var createdAt: Date

    init(_ subscription: WebhookSubscription, revealing secret: WebhookSecret? = nil, now: Date) {
        url = Redaction.url(subscription.url)
        events = subscription.eventTypes
        state = subscription.state
        secretHint = subscription.secret.hint
        self.secret = secret?.value
        maxDeliveriesPerSecond = subscription.maxDeliveriesPerSecond
        lastError = subscription.endpointLastError
        previousSecretExpiresAt = subscription.previousSecretExpiresAt.flatMap { $0 > now ? $0 : nil }
        createdAt = subscription.createdAt
    }
}
