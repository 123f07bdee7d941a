import Foundation
import GRDB

/// A session's webhook subscriber: where its events are POSTed, which types, and the secrets that sign them.
struct WebhookSubscription: Codable, Sendable, SnakeCaseColumns, PersistableRecord {
    /// How deliveries to the subscriber are going.
    enum State: String, Codable, Sendable {
        /// The last delivery was acknowledged (or none was attempted yet).
        case healthy
        /// The last attempt failed; retries are scheduled.
        case retrying
        /// The subscriber answered 410 Gone; nothing is delivered until the webhook is set again.
        case disabled
    }

    static let databaseTableName = "webhooks"

    var sessionId: Int64
    var url: String
    /// The event types delivered; nil delivers every type.
    var eventTypes: [EventType]?
    var secret: WebhookSecret
    /// The secret before the last rotation, which still signs until `previousSecretExpiresAt`.
    var previousSecret: WebhookSecret?
    var previousSecretExpiresAt: Date?
    var state: State
    var createdAt: Date

    /// Whether events of this type go to the subscriber. A disabled subscription still collects them in the
    /// outbox; they go out when the webhook is set again.
    func delivers(_ type: EventType) -> Bool {
        eventTypes?.contains(type) ?? true
    }

    /// The secrets that sign a delivery made at `now`: the current one, and the previous one during a rotation.
    func signingSecrets(at now: Date) -> [WebhookSecret] {
        guard let previousSecret, let expiry = previousSecretExpiresAt, expiry > now else { return [secret] }
        return [secret, previousSecret]
    }
}
