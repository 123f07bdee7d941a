import Foundation
import Hummingbird
import TransferdDomain

/// A session as the API shows it, with its webhook's acknowledgement record.
struct SessionResponse: ResponseEncodable, Sendable {
    /// The session's configuration, with its webhook (whose secret shows only in the response that made it).
    struct ConfigurationView: Encodable, Sendable {
        var settings: SessionConfiguration
        var webhook: WebhookResponse?

        enum CodingKeys: String, CodingKey {
            case webhook
        }

        /// The settings' fields and `webhook` in one object; header values that are credentials are redacted.
        func encode(to encoder: any Encoder) throws {
            var shown = settings
            shown.httpAdditionalHeaders = Redaction.headers(settings.httpAdditionalHeaders)
            shown.proxy = settings.proxy?.redacted
            try shown.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(webhook, forKey: .webhook)
        }
    }

    var identifier: String
    /// The tenant the session belongs to.
    var tenant: String
    var state: Session.State
    var configuration: ConfigurationView
    var taskCounts: [String: Int]
    /// Bytes the session's tasks keep on disk.
    var storedBytes: Int64
    /// The sequence of the newest event: a stream or a batch from `after` it sees only what comes next.
    var lastEventSequence: Int64
    /// The oldest sequence the log holds, or will: history past keeping is trimmed from the log's start.
    var earliestSequence: Int64
    var lastAcknowledgedSequence: Int64
    var pendingDeliveries: Int
    @ExplicitNull var webhookState: WebhookSubscription.State?
    var createdAt: Date
    /// Absent while the session lives.
    var invalidatedAt: Date?

    init(_ session: Session, details: Session.Details, revealing secret: WebhookSecret? = nil, now: Date) {
        identifier = session.identifier
        tenant = details.tenant
        state = session.state
        configuration = ConfigurationView(
            settings: session.configuration,
            webhook: details.webhook.map { WebhookResponse($0, revealing: secret, now: now) }
        )
        taskCounts = Dictionary(uniqueKeysWithValues: TaskState.allCases.map { ($0.rawValue, details.taskCounts[$0] ?? 0) })
        storedBytes = details.storedBytes
        lastEventSequence = session.lastSequence
        earliestSequence = session.earliestSequence
        lastAcknowledgedSequence = session.lastAcknowledgedSequence
        pendingDeliveries = details.pendingDeliveries
        webhookState = details.webhook?.state
        createdAt = session.createdAt
        invalidatedAt = session.invalidatedAt
    }
}
