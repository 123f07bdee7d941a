/// Webhook subscriptions, one per session at most.
package protocol WebhookRepository {
    func find(sessionID: Int64) throws -> WebhookSubscription?
    /// Inserts or replaces the session's subscription.
    func save(_ subscription: WebhookSubscription) throws
    /// Removes the subscription; false when there was none.
    func delete(sessionID: Int64) throws -> Bool
}
