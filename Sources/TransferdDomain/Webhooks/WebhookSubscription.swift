import Foundation

/// A session's webhook subscriber: where its events are POSTed, which types, and the secrets that sign them.
package struct WebhookSubscription: Codable, Sendable {
    /// How deliveries to the subscriber's endpoint are going (``EndpointHealth``, as the API shows it).
    package enum State: String, Codable, Sendable, CaseIterable {
        /// Attempts are acknowledged (or none was made yet).
        case healthy
        /// Attempts fail; probes go out to find when it is back.
        case failing
        /// Attempts fail, and a probe is out.
        case probing
        /// A 410 Gone, or failing for too long: nothing is delivered until the webhook is enabled or set again.
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
    /// Its endpoint's state, read with it (a subscriber shares it with every session of the tenant that has its URL).
    package var state: State
    /// Its endpoint's key (``WebhookEndpoint``); nil for a subscription stored before endpoints were, until the
    /// dispatcher's start gives it one.
    package var endpointKey: String?
    /// Why its endpoint's last failed attempt failed, read with it; nil when it never failed.
    package var endpointLastError: String?
    /// The most deliveries a second its endpoint is sent, shared by every session pointing at it (nil: no limit).
    package var maxDeliveriesPerSecond: Double?
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
        endpointKey: String? = nil,
        endpointLastError: String? = nil,
        maxDeliveriesPerSecond: Double? = nil,
        createdAt: Date
    ) {
        self.sessionId = sessionId
        self.url = url
        self.eventTypes = eventTypes
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.state = state
        self.endpointKey = endpointKey
        self.endpointLastError = endpointLastError
        self.maxDeliveriesPerSecond = maxDeliveriesPerSecond
        self.createdAt = createdAt
    }
}
