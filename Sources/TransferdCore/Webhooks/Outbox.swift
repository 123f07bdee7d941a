import Foundation
import GRDB

/// Puts events on their way to the session's subscriber: a delivery row in the event's own transaction, so that
/// an event exists if and only if its delivery does. The dispatcher is woken after the commit.
struct Outbox: Sendable {
    let doorbell: Doorbell

    func enqueue(_ event: Event, _ db: Database) throws {
        guard let webhook = try WebhookSubscription.fetchOne(db, key: event.sessionId), webhook.delivers(event.type) else { return }
        var delivery = Delivery(
            sessionId: event.sessionId,
            eventId: event.id!,
            sequence: event.sequence,
            eventType: event.type,
            taskIdentifier: event.taskIdentifier,
            messageId: "msg_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased(),
            status: .pending,
            attemptCount: 0,
            nextAttemptAt: event.createdAt,
            createdAt: event.createdAt
        )
        try delivery.insert(db)
        let doorbell = self.doorbell
        db.afterNextTransaction { _ in doorbell.ring() }
    }
}
