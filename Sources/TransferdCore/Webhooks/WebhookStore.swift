import Foundation
import GRDB

/// Sets, rotates and removes a session's subscriber, and repairs its deliveries.
struct WebhookStore: Sendable {
    let database: AppDatabase
    let eventLog: EventLog
    let doorbell: Doorbell
    let policy: DeliveryPolicy

    /// Creates or replaces the subscriber in the caller's transaction. A replacement keeps the current secret
    /// unless a new one is given, and re-enables a disabled subscription. Returns the subscription and the secret
    /// to show once (when one was generated), and whether it was created.
    func set(_ request: WebhookRequest.Validated, sessionID: Int64, _ db: Database) throws -> (WebhookSubscription, WebhookSecret?, Bool) {
        let existing = try WebhookSubscription.fetchOne(db, key: sessionID)
        let generated = request.secret == nil && existing == nil ? WebhookSecret.generate() : nil
        let subscription = WebhookSubscription(
            sessionId: sessionID,
            url: request.url,
            eventTypes: request.eventTypes,
            secret: request.secret ?? existing?.secret ?? generated!,
            previousSecret: existing?.previousSecret,
            previousSecretExpiresAt: existing?.previousSecretExpiresAt,
            state: .healthy,
            createdAt: existing?.createdAt ?? Date()
        )
        try subscription.save(db)
        db.afterNextTransaction { [doorbell] _ in doorbell.ring() }
        return (subscription, generated, existing == nil)
    }

    func set(_ request: WebhookRequest.Validated, sessionID: Int64) async throws -> (WebhookSubscription, WebhookSecret?, Bool) {
        try await database.pool.write { db in try set(request, sessionID: sessionID, db) }
    }

    func subscription(sessionID: Int64) async throws -> WebhookSubscription {
        let subscription = try await database.pool.read { db in try WebhookSubscription.fetchOne(db, key: sessionID) }
        guard let subscription else { throw Problem.notFound("The session has no webhook.") }
        return subscription
    }

    /// Removes the subscriber; its pending deliveries fail, their events stay readable by polling.
    func remove(sessionID: Int64) async throws {
        try await database.pool.write { db in
            guard try WebhookSubscription.deleteOne(db, key: sessionID) else {
                throw Problem.notFound("The session has no webhook.")
            }
            try db.execute(
                sql: """
                    UPDATE deliveries SET status = 'failed', completed_at = ?, last_error = 'The webhook was removed.'
                    WHERE session_id = ? AND status = 'pending'
                    """,
                arguments: [Date(), sessionID]
            )
        }
    }

    /// Replaces the secret; the previous one keeps signing (as a second signature) for the rotation window.
    func rotateSecret(sessionID: Int64, to secret: WebhookSecret?) async throws -> (WebhookSubscription, WebhookSecret) {
        try await database.pool.write { db in
            guard var subscription = try WebhookSubscription.fetchOne(db, key: sessionID) else {
                throw Problem.notFound("The session has no webhook.")
            }
            let newSecret = secret ?? .generate()
            subscription.previousSecret = subscription.secret
            subscription.previousSecretExpiresAt = Date().addingTimeInterval(policy.rotationWindow.timeInterval)
            subscription.secret = newSecret
            try subscription.update(db)
            return (subscription, newSecret)
        }
    }

    /// Writes a `webhook.test` event, which the outbox delivers like any other.
    func sendTest(sessionID: Int64) async throws -> Delivery {
        try await database.pool.write { db in
            guard let subscription = try WebhookSubscription.fetchOne(db, key: sessionID), subscription.state != .disabled else {
                throw Problem.conflict("The session has no enabled webhook to test.")
            }
            let event = try eventLog.append(db, sessionID: sessionID, type: .webhookTest)
            guard let delivery = try Delivery.filter(Column("event_id") == event.id).fetchOne(db) else {
                throw Problem.conflict("The webhook's event filter excludes `webhook.test`.")
            }
            return delivery
        }
    }

    /// Puts deliveries back in the queue for an immediate attempt, keeping their `webhook-id`.
    /// Without `deliveryID`, every dead-lettered delivery of the session goes back (replay).
    func retry(sessionID: Int64, deliveryID: Int64?) async throws -> [Delivery] {
        try await database.pool.write { db in
            var deliveries: [Delivery]
            if let deliveryID {
                guard let delivery = try Delivery.fetchOne(db, key: deliveryID), delivery.sessionId == sessionID else {
                    throw Problem.notFound("Delivery \(deliveryID) does not exist in this session.")
                }
                guard delivery.status != .pending else { throw Problem.conflict("Delivery \(deliveryID) is already pending.") }
                deliveries = [delivery]
            } else {
                deliveries = try Delivery.filter(
                    Delivery.Columns.sessionId == sessionID && Delivery.Columns.status == Delivery.Status.failed.rawValue
                )
                .fetchAll(db)
            }
            let now = Date()
            for index in deliveries.indices {
                deliveries[index].status = .pending
                deliveries[index].attemptCount = 0
                deliveries[index].nextAttemptAt = now
                deliveries[index].completedAt = nil
                try deliveries[index].update(db)
            }
            if var subscription = try WebhookSubscription.fetchOne(db, key: sessionID), subscription.state == .disabled, !deliveries.isEmpty
            {
                subscription.state = .retrying
                try subscription.update(db, columns: ["state"])
            }
            db.afterNextTransaction { [doorbell] _ in doorbell.ring() }
            return deliveries
        }
    }
}
