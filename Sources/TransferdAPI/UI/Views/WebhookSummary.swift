import Foundation
import TransferdDomain

/// A session's subscriber in a line, for the session's pages (`webhook.mustache`): its URL without a password, its
/// endpoint's health, the event types it takes and its rate limit.
enum WebhookSummary {
    static func values(_ webhook: WebhookSubscription?) -> [String: Any]? {
        webhook.map { webhook in
            var values: [String: Any] = [
                "url": Redaction.url(webhook.url), "state": webhook.state.rawValue, "canEnable": webhook.state != .healthy,
                "events": webhook.eventTypes.map { $0.map(\.rawValue).joined(separator: ", ") } ?? "every event type",
            ]
            values["rate"] = webhook.maxDeliveriesPerSecond.map { String(format: "%g", $0) }
            values["lastError"] = webhook.state == .healthy ? nil : webhook.endpointLastError
            return values
        }
    }
}
