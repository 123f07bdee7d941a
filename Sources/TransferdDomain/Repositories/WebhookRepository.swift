/// Webhook subscriptions, one per session at most.
package protocol WebhookRepository {
    func find(sessionID: Int64) throws -> WebhookSubscription?
    /// Inserts or replaces the session's subscription.
    func save(_ subscription: WebhookSubscription) throws
    /// Sets the subscription's health; writes nothing when it is so already, or when there is no subscription.
    func setState(_ state: WebhookSubscription.State, sessionID: Int64) throws
    /// Removes the subscription; false when there was none.
    func delete(sessionID: Int64) throws -> Bool
}
