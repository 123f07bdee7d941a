import Foundation

/// A session's webhook subscriber: where its events are POSTed, which types, and the secrets that sign them.
package struct WebhookSubscription: Codable, Sendable {
    /// How deliveries to the subscriber are going.
    package enum State: String, Codable, Sendable {
        /// The last delivery was acknowledged (or none was attempted yet).
        case healthy
        /// The last attempt failed; retries are scheduled.
        case retrying
        /// The subscriber answered 410 Gone; nothing is delivered until the webhook is set again.
        case disabled
    }

    package var sessionId: Int64
    package var url: String
    /// The event types delivered; nil delivers every type.
    package var eventTypes: [EventType]?
    package var secret: WebhookSecret
    /// The secret before the last rotation, which still signs until `previousSecretExpiresAt`.
    package var previousSecret: WebhookSecret?
    package var previousSecretExpiresAt: Date?
    package var state: State
    package var createdAt: Date

    /// Whether events of `type` go to a subscriber that takes `eventTypes` (nil: all of them). A disabled
    /// subscription still collects them in the outbox; they go out when the webhook is set again.
    package static func delivers(_ type: EventType, eventTypes: [EventType]?) -> Bool {
        eventTypes?.contains(type) ?? true
    }

    /// The secrets that sign a delivery made at `now`: the current one, and the previous one during a rotation.
    package func signingSecrets(at now: Date) -> [WebhookSecret] {
        guard let previousSecret, let expiry = previousSecretExpiresAt, expiry > now else { return [secret] }
        return [secret, previousSecret]
    }

    package init(
        sessionId: Int64,
        url: String,
        eventTypes: [EventType]? = nil,
        secret: WebhookSecret,
        previousSecret: WebhookSecret? = nil,
        previousSecretExpiresAt: Date? = nil,
        state: State,
        createdAt: Date
    ) {
        self.sessionId = sessionId
        self.url = url
        self.eventTypes = eventTypes
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.state = state
        self.createdAt = createdAt
    }
}
