/// Webhook subscriptions, one per session at most.
package protocol WebhookRepository {
    func find(sessionID: Int64) async throws -> WebhookSubscription?
    /// Inserts or replaces the session's subscription; returns it with its endpoint's key. Its rate limit, when it has
    /// one, becomes that of every subscription with the endpoint; without one, it takes theirs.
    @discardableResult
    func save(_ subscription: WebhookSubscription) async throws -> WebhookSubscription
    /// The sessions whose subscriber has the endpoint, by row id, with their identifiers and the subscriber's URL.
    func subscribers(endpointKey: String) async throws -> [(sessionID: Int64, identifier: String, url: String)]
    /// Removes the subscription; false when there was none.
    func delete(sessionID: Int64) async throws -> Bool
}
