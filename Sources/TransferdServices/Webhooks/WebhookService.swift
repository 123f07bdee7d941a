import Foundation
import TransferdDomain

/// Sets, rotates and removes a session's subscriber, and repairs its deliveries.
package struct WebhookService: Sendable {
    let store: any Store
    let eventLog: EventLog
    let policy: DeliveryPolicy
    let clock: any WallClock

    package init(store: any Store, eventLog: EventLog, policy: DeliveryPolicy, clock: any WallClock) {
        self.store = store
        self.eventLog = eventLog
        self.policy = policy
        self.clock = clock
    }

    /// The outcome of setting a subscriber: the subscription, the secret to show once (when one was generated),
    /// and whether the subscription is new.
    package struct Setting: Sendable {
        package var subscription: WebhookSubscription
        package var generated: WebhookSecret?
        package var created: Bool
    }

    /// Creates or replaces the subscriber in the caller's transaction. A replacement keeps the current secret
    /// unless a new one is given. Setting a subscriber whose endpoint is disabled enables it again.
    package func set(_ settings: WebhookSettings, sessionID: Int64, _ repositories: any Repositories) async throws -> Setting {
        let existing = try await repositories.webhooks.find(sessionID: sessionID)
        let generated = settings.secret == nil && existing == nil ? WebhookSecret.generate() : nil
        let subscription = WebhookSubscription(
            sessionId: sessionID,
            url: settings.url,
            eventTypes: settings.eventTypes,
            secret: settings.secret ?? existing?.secret ?? generated!,
            previousSecret: existing?.previousSecret,
            previousSecretExpiresAt: existing?.previousSecretExpiresAt,
            state: .healthy,
            maxDeliveriesPerSecond: settings.maxDeliveriesPerSecond,
            createdAt: existing?.createdAt ?? clock.now
        )
        var saved = try await repositories.webhooks.save(subscription)
        saved.state = try await enable(saved, onlyIfDisabled: true, repositories)
        wakeDispatcher(repositories)
        return Setting(subscription: saved, generated: generated, created: existing == nil)
    }

    package func set(_ settings: WebhookSettings, sessionID: Int64) async throws -> Setting {
        try await store.write { repositories in try await set(settings, sessionID: sessionID, repositories) }
    }

    package func subscription(sessionID: Int64) async throws -> WebhookSubscription {
        let subscription = try await store.lookup { try await $0.webhooks.find(sessionID: sessionID) }
        guard let subscription else { throw DomainError.notFound("The session has no webhook.") }
        return subscription
    }

    /// Removes the subscriber; its pending deliveries fail, their events stay readable by polling.
    package func remove(sessionID: Int64) async throws {
        let now = clock.now
        try await store.write { repositories in
            guard try await repositories.webhooks.delete(sessionID: sessionID) else {
                throw DomainError.notFound("The session has no webhook.")
            }
            let abandoned = DeliveryStateMachine.abandoned(reason: "The webhook was removed.", at: now)
            try await repositories.deliveries.apply(abandoned, sessionID: sessionID)
        }
    }

    /// Replaces the secret; the previous one keeps signing (as a second signature) for the rotation window.
    package func rotateSecret(sessionID: Int64, to secret: WebhookSecret?) async throws -> (WebhookSubscription, WebhookSecret) {
        let now = clock.now
        return try await store.write { repositories in
            guard var subscription = try await repositories.webhooks.find(sessionID: sessionID) else {
                throw DomainError.notFound("The session has no webhook.")
            }
            let newSecret = secret ?? .generate()
            subscription.previousSecret = subscription.secret
            subscription.previousSecretExpiresAt = now.addingTimeInterval(policy.rotationWindow.timeInterval)
            subscription.secret = newSecret
            try await repositories.webhooks.save(subscription)
            return (subscription, newSecret)
        }
    }

    /// Writes a `webhook.test` event, which the outbox delivers like any other.
    package func sendTest(sessionID: Int64) async throws -> Delivery {
        try await store.write { repositories in
            guard let subscription = try await repositories.webhooks.find(sessionID: sessionID), subscription.state != .disabled else {
                throw DomainError.conflict("The session has no enabled webhook to test.")
            }
            let event = try await eventLog.append(repositories, sessionID: sessionID, .webhookTest)
            guard let delivery = try await repositories.deliveries.find(eventID: event.rowID) else {
                throw DomainError.conflict("The webhook's event filter excludes `webhook.test`.")
            }
            return delivery
        }
    }

    /// Puts deliveries back in the queue for an immediate attempt, keeping their `webhook-id`.
    /// Without `deliveryID`, every dead-lettered delivery of the session goes back (replay).
    package func retry(sessionID: Int64, deliveryID: Int64?) async throws -> [Delivery] {
        let now = clock.now
        return try await store.write { repositories in
            var deliveries: [Delivery]
            if let deliveryID {
                guard let delivery = try await repositories.deliveries.find(id: deliveryID), delivery.sessionId == sessionID else {
                    throw DomainError.notFound("Delivery \(deliveryID) does not exist in this session.")
                }
                deliveries = [delivery]
            } else {
                deliveries = try await repositories.deliveries.list(sessionID: sessionID, status: .failed)
            }
            for index in deliveries.indices {
                let status = deliveries[index].status
                var machine = DeliveryStateMachine(deliveries[index], policy: policy)
                do {
                    _ = try machine.handle(.retried, at: now)
                } catch {
                    throw DomainError.conflict("Delivery \(deliveries[index].rowID) is already pending.")
                }
                deliveries[index] = machine.delivery
                _ = try await repositories.deliveries.update(deliveries[index], ifStatus: status)
            }
            if let subscription = try await repositories.webhooks.find(sessionID: sessionID), !deliveries.isEmpty {
                _ = try await enable(subscription, onlyIfDisabled: true, repositories)
            }
            wakeDispatcher(repositories)
            return deliveries
        }
    }

    /// Sends again every dead-lettered delivery in `scope` whose event was written at `since` or later, in order
    /// per session (Svix's recover); a disabled endpoint of theirs is enabled. Returns how many went back.
    package func recover(_ scope: DeliveryScope, since: Date) async throws -> Int {
        let now = clock.now
        return try await store.write { repositories in
            let retried = DeliveryStateMachine.retried(from: .failed, at: now)
            let sessions = try await repositories.deliveries.recoverFailed(scope, since: since, retried)
            var endpoints: Set<String> = []
            for sessionID in Set(sessions).sorted() {
                guard let subscription = try await repositories.webhooks.find(sessionID: sessionID),
                    endpoints.insert(subscription.endpointKey ?? "").inserted
                else { continue }
                _ = try await enable(subscription, onlyIfDisabled: true, repositories)
            }
            wakeDispatcher(repositories)
            return sessions.count
        }
    }

    /// One delivery of the session with its attempts: the first of the page that starts at it.
    package func delivery(sessionID: Int64, id: Int64) async throws -> (Delivery, [DeliveryAttempt]) {
        let page = try await deliveries(sessionID: sessionID, after: id - 1, status: nil, limit: 1)
        guard let found = page.first, found.0.rowID == id else {
            throw DomainError.notFound("Delivery \(id) does not exist in this session.")
        }
        return found
    }

    /// The session's deliveries after row id `cursor`, with their attempts.
    package func deliveries(
        sessionID: Int64,
        after cursor: Int64,
        status: Delivery.Status?,
        limit: Int
    ) async throws -> [(
        Delivery, [DeliveryAttempt]
    )] {
        try await store.read { try await $0.deliveries.list(sessionID: sessionID, after: cursor, status: status, limit: limit) }
    }

    /// Turns the session's subscriber's endpoint back on (`POST …/webhook/enable`): a disabled or failing endpoint
    /// catches up, every waiting delivery of every session pointing at it due now, in order.
    package func enable(sessionID: Int64) async throws -> WebhookSubscription {
        try await store.write { repositories in
            guard var subscription = try await repositories.webhooks.find(sessionID: sessionID) else {
                throw DomainError.notFound("The session has no webhook.")
            }
            subscription.state = try await enable(subscription, onlyIfDisabled: false, repositories)
            wakeDispatcher(repositories)
            return subscription
        }
    }

    /// Feeds `enabled` to the subscription's endpoint (only when it is disabled, if `onlyIfDisabled`); returns the
    /// endpoint's state as the API shows it.
    private func enable(
        _ subscription: WebhookSubscription,
        onlyIfDisabled: Bool,
        _ repositories: any Repositories
    ) async throws -> WebhookSubscription.State {
        guard let key = subscription.endpointKey, let endpoint = try await repositories.endpoints.find(key: key) else { return .healthy }
        if onlyIfDisabled, endpoint.health.state != .disabled { return endpoint.health.state }
        return try await repositories.endpoints.handle(.enabled, key: key, policy: policy, at: clock.now)?.endpoint.health.state ?? .healthy
    }

    private func wakeDispatcher(_ repositories: any Repositories) {
        repositories.announce(.outbox)
    }
}
