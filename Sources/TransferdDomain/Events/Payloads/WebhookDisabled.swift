/// `webhook.disabled`: the session's subscriber's endpoint was disabled (a 410 Gone, or failing for too long); nothing
/// is delivered until it is enabled again.
package struct WebhookDisabled: Codable, Sendable, Equatable {
    package var reason: String

    package init(reason: String) {
        self.reason = reason
    }
}
