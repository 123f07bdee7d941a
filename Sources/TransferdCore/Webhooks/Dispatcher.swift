import AsyncHTTPClient
import Foundation
import GRDB
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// Sends the outbox to subscribers: per session one delivery at a time, in sequence order, so that a later
/// event waits while an earlier one is unacknowledged; sessions are served concurrently. At-least-once: a
/// delivery stays pending until the subscriber answers 2xx, across restarts.
///
/// Superseded `task.progress` and `task.upload_progress` deliveries are coalesced, so a slow subscriber gets the latest progress, not a backlog.
struct Dispatcher: Service {
    let database: AppDatabase
    let destinations: DestinationGuard
    let policy: DeliveryPolicy
    let doorbell: Doorbell
    let concurrency: Int
    let logger: Logger
    private let sending = SendingSessions()

    init(
        database: AppDatabase,
        destinations: DestinationGuard,
        policy: DeliveryPolicy,
        doorbell: Doorbell,
        concurrency: Int = 16,
        logger: Logger
    ) {
        self.database = database
        self.destinations = destinations
        self.policy = policy
        self.doorbell = doorbell
        self.concurrency = concurrency
        self.logger = logger
    }

    func run() async throws {
        // Cancelling on graceful shutdown abandons attempts in flight; they stay pending and go out after a restart.
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled {
                    var nextDue: Duration?
                    do {
                        let (due, wait) = try await claimDueDeliveries()
                        for delivery in due {
                            group.addTask {
                                await deliver(delivery)
                                sending.remove(delivery.sessionId)
                                doorbell.ring()
                            }
                        }
                        nextDue = wait
                    } catch {
                        logger.error("could not read the outbox", metadata: ["error": "\(error)"])
                        nextDue = .seconds(1)
                    }
                    await doorbell.wait(timeout: nextDue)
                }
            }
        }
    }

    /// Coalesces superseded progress, then claims the head delivery of every session that is due and not already
    /// sending. Returns them, and how long until the next head falls due.
    private func claimDueDeliveries() async throws -> ([Delivery], Duration?) {
        try await database.pool.write { db in
            let now = Date()
            let busy = sending.all.sqliteJSONArray
            try db.execute(
                sql: """
                    UPDATE deliveries SET status = 'coalesced', completed_at = ?
                    WHERE status = 'pending' AND event_type IN ('task.progress', 'task.upload_progress')
                      AND session_id NOT IN (SELECT value FROM json_each(?))
                      AND EXISTS (
                          SELECT 1 FROM deliveries later
                          WHERE later.session_id = deliveries.session_id AND later.status = 'pending'
                            AND later.event_type = deliveries.event_type AND later.task_identifier = deliveries.task_identifier
                            AND later.sequence > deliveries.sequence)
                    """,
                arguments: [now, busy]
            )
            let heads = try Delivery.fetchAll(
                db,
                sql: """
                    SELECT d.* FROM deliveries d JOIN webhooks w ON w.session_id = d.session_id
                    WHERE d.status = 'pending' AND w.state <> 'disabled'
                      AND d.session_id NOT IN (SELECT value FROM json_each(?))
                      AND d.sequence = (
                          SELECT MIN(p.sequence) FROM deliveries p WHERE p.session_id = d.session_id AND p.status = 'pending')
                    ORDER BY d.next_attempt_at
                    """,
                arguments: [busy]
            )
            let free = max(0, concurrency - sending.count)
            let due = Array(heads.filter { $0.nextAttemptAt <= now }.prefix(free))
            for delivery in due { sending.insert(delivery.sessionId) }
            let waiting = heads.filter { $0.nextAttemptAt > now }.map(\.nextAttemptAt).min()
            return (due, waiting.map { .milliseconds(Int64(max(0, $0.timeIntervalSince(now)) * 1000) + 1) })
        }
    }

    /// One attempt: POST the signed payload and record how the subscriber answered.
    private func deliver(_ delivery: Delivery) async {
        do {
            let loaded = try await database.pool.read { db -> (Event, Session, WebhookSubscription, TransferTask?)? in
                guard let event = try Event.fetchOne(db, key: delivery.eventId),
                    let session = try Session.fetchOne(db, key: delivery.sessionId),
                    let webhook = try WebhookSubscription.fetchOne(db, key: delivery.sessionId)
                else { return nil }
                let task = try event.taskIdentifier.flatMap {
                    try TransferTask.fetch(db, sessionID: delivery.sessionId, taskIdentifier: $0)
                }
                return (event, session, webhook, task)
            }
            guard let (event, session, webhook, task) = loaded else { return }
            let body = try WebhookPayload(event: event, sessionIdentifier: session.identifier, task: task).encoded()
            let attemptedAt = Date()
            let timestamp = Int(attemptedAt.timeIntervalSince1970)
            var request = HTTPClientRequest.transfer(to: webhook.url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "User-Agent", value: "transferd")
            request.headers.add(name: "webhook-id", value: delivery.messageId)
            request.headers.add(name: "webhook-timestamp", value: String(timestamp))
            request.headers.add(
                name: "webhook-signature",
                value: WebhookSigner.signature(
                    messageID: delivery.messageId,
                    timestamp: timestamp,
                    body: body,
                    secrets: webhook.signingSecrets(at: attemptedAt)
                )
            )
            request.body = .bytes(ByteBuffer(bytes: body))
            let started = ContinuousClock.now
            let answer: DeliveryAnswer
            do {
                let client = try await destinations.client(for: request.url)
                let response = try await client.execute(request, timeout: .nanoseconds(Int64(policy.timeout.timeInterval * 1e9)))
                // Read (and drop) the body so that the connection can be reused; a subscriber's reply is not kept.
                for try await _ in response.body {}
                answer = .answered(status: Int(response.status.code), retryAfter: RetryAfter.parse(response.headers, now: Date()))
            } catch {
                if Task.isCancelled { return }
                answer = .failed(TransferError(transportError: error).message)
            }
            try await record(answer, of: delivery, attemptedAt: attemptedAt, latency: ContinuousClock.now - started)
        } catch {
            logger.error("webhook delivery failed", metadata: ["delivery": "\(delivery.messageId)", "error": "\(error)"])
        }
    }

    private func record(_ answer: DeliveryAnswer, of delivery: Delivery, attemptedAt: Date, latency: Duration) async throws {
        try await database.pool.write { db in
            var attempt = DeliveryAttempt(
                deliveryId: delivery.rowID,
                attemptedAt: attemptedAt,
                statusCode: answer.status,
                latencyMs: Int(latency.timeInterval * 1000),
                error: answer.error
            )
            try attempt.insert(db)
            // The delivery may have been removed from the queue meanwhile (webhook deleted, coalesced): keep its outcome.
            guard var current = try Delivery.fetchOne(db, key: delivery.rowID), current.status == .pending,
                var webhook = try WebhookSubscription.fetchOne(db, key: delivery.sessionId)
            else { return }
            current.attemptCount += 1
            let now = Date()
            switch answer {
            case .answered(let status, _) where (200..<300).contains(status):
                current.status = .delivered
                current.completedAt = now
                current.lastError = nil
                webhook.state = .healthy
                try db.execute(
                    sql: "UPDATE sessions SET last_acknowledged_sequence = MAX(last_acknowledged_sequence, ?) WHERE id = ?",
                    arguments: [current.sequence, current.sessionId]
                )
            case .answered(410, _):
                current.status = .failed
                current.completedAt = now
                current.lastError = "The subscriber answered 410 Gone; the webhook is disabled."
                webhook.state = .disabled
            default:
                current.lastError = answer.error ?? "The subscriber answered \(answer.status ?? 0)."
                webhook.state = .retrying
                if let delay = policy.delay(afterFailedAttempts: current.attemptCount, retryAfter: answer.retryAfter) {
                    current.nextAttemptAt = now.addingTimeInterval(delay.timeInterval)
                } else {
                    current.status = .failed
                    current.completedAt = now
                }
            }
            try current.update(db)
            try webhook.update(db, columns: ["state"])
        }
    }
}
