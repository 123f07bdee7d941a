import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import TransferdDomain
import TransferdEngine

/// Sends the outbox to subscribers: per session one delivery at a time, in sequence order, so that a later
/// event waits while an earlier one is unacknowledged; sessions are served concurrently. At-least-once: a
/// delivery stays pending until the subscriber answers 2xx, across restarts.
///
/// A session that is claimed keeps sending while its next delivery is due, for up to `turn` deliveries; the
/// transaction that records one answer finds the next, so a busy session costs no claim per delivery. Then it
/// goes back in line behind the sessions that have waited longer.
///
/// Superseded `task.progress` and `task.upload_progress` deliveries are coalesced when the newer one is written
/// (``DeliveryRepository/enqueue(_:)``), so a slow subscriber gets the latest progress, not a backlog.
package struct Dispatcher: Service {
    let store: any Store
    let destinations: DestinationGuard
    let policy: DeliveryPolicy
    let loop: WakeUpLoop
    let concurrency: Int
    let turn: Int
    private let sending = SendingSessions()
    private let recorder: GroupCommit

    package init(
        store: any Store,
        destinations: DestinationGuard,
        policy: DeliveryPolicy,
        loop: WakeUpLoop,
        concurrency: Int,
        turn: Int = 64
    ) {
        self.store = store
        self.destinations = destinations
        self.policy = policy
        self.loop = loop
        self.concurrency = concurrency
        self.turn = turn
        recorder = GroupCommit(store: store)
    }

    var clock: any WallClock { loop.clock }
    var logger: Logger { loop.logger }

    package func run() async throws {
        await withDiscardingTaskGroup { group in
            await loop.run("read the outbox") {
                let (due, nextDue) = try await claimDueDeliveries()
                for head in due {
                    group.addTask {
                        await send(from: head)
                        sending.remove(head.sessionId)
                        loop.doorbell.ring()
                    }
                }
                return nextDue
            }
            // Attempts in flight are abandoned; they stay pending and go out after a restart.
            group.cancelAll()
        }
    }

    /// Claims the head delivery of every session that is due and not already sending, oldest first, as many as
    /// there are free senders. Returns them, and when the next head falls due.
    private func claimDueDeliveries() async throws -> ([Delivery], Date?) {
        let now = clock.now
        let busy = sending.all
        let heads = try await store.read { try $0.deliveries.pendingHeads(exceptSessions: busy) }
        let due = Array(heads.filter { $0.nextAttemptAt <= now }.prefix(max(0, concurrency - busy.count)))
        for delivery in due { sending.insert(delivery.sessionId) }
        return (due, heads.filter { $0.nextAttemptAt > now }.map(\.nextAttemptAt).min())
    }

    /// Sends the session's deliveries in sequence order from `head`, while the next one is due, for one turn.
    private func send(from head: Delivery) async {
        var next: Delivery? = head
        for _ in 0..<turn {
            guard let delivery = next, !Task.isCancelled else { return }
            next = await deliver(delivery)
        }
    }

    /// One attempt: POST the signed payload and record how the subscriber answered. Returns the session's next
    /// delivery when it is due now (after a 2xx).
    private func deliver(_ delivery: Delivery) async -> Delivery? {
        do {
            let loaded = try await store.read { repositories -> (Event, Session, WebhookSubscription, TransferTask?)? in
                guard let event = try repositories.events.find(id: delivery.eventId),
                    let session = try repositories.sessions.find(id: delivery.sessionId),
                    let webhook = try repositories.webhooks.find(sessionID: delivery.sessionId)
                else { return nil }
                let task = try event.taskIdentifier.flatMap {
                    try repositories.tasks.find(sessionID: delivery.sessionId, taskIdentifier: $0)
                }
                return (event, session, webhook, task)
            }
            guard let (event, session, webhook, task) = loaded else { return nil }
            let attemptedAt = clock.now
            let body = try WebhookPayload(event: event, sessionIdentifier: session.identifier, task: task, now: attemptedAt).encoded()
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
                answer = .answered(status: Int(response.status.code), retryAfter: RetryAfter.parse(response.headers, now: clock.now))
            } catch {
                if Task.isCancelled { return nil }
                answer = .failed(TransferError(transportError: error).message)
            }
            let latency = ContinuousClock.now - started
            let recording = Recording(delivery: delivery, answer: answer, attemptedAt: attemptedAt, latency: latency, now: clock.now)
            let policy = policy
            return try await recorder.write { try Self.record(recording, in: $0, policy: policy) }
        } catch {
            logger.error("webhook delivery failed", metadata: ["delivery": "\(delivery.messageId)", "error": "\(error)"])
            return nil
        }
    }

    /// How a subscriber answered one attempt, to record.
    private struct Recording: Sendable {
        let delivery: Delivery
        let answer: DeliveryAnswer
        let attemptedAt: Date
        let latency: Duration
        let now: Date
    }

    /// Records the answer (in a transaction shared with other sessions' answers); returns the session's next
    /// delivery when the answer was a 2xx and that one is due.
    private static func record(_ recording: Recording, in repositories: any Repositories, policy: DeliveryPolicy) throws -> Delivery? {
        let (delivery, answer, now) = (recording.delivery, recording.answer, recording.now)
        try repositories.deliveries.insertAttempt(
            DeliveryAttempt(
                deliveryId: delivery.rowID,
                attemptedAt: recording.attemptedAt,
                statusCode: answer.status,
                latencyMs: Int(recording.latency.timeInterval * 1000),
                error: answer.error
            )
        )
        // The delivery is this sender's as it was claimed; it may have left the queue meanwhile (webhook deleted,
        // session invalidated): then its outcome stands and nothing else changes.
        var current = delivery
        current.attemptCount += 1
        let health: WebhookSubscription.State
        switch answer {
        case .answered(let status, _) where (200..<300).contains(status):
            current.status = .delivered
            current.completedAt = now
            current.lastError = nil
            health = .healthy
        case .answered(410, _):
            current.status = .failed
            current.completedAt = now
            current.lastError = "The subscriber answered 410 Gone; the webhook is disabled."
            health = .disabled
        default:
            current.lastError = answer.error ?? "The subscriber answered \(answer.status ?? 0)."
            health = .retrying
            if let delay = policy.delay(afterFailedAttempts: current.attemptCount, retryAfter: answer.retryAfter) {
                current.nextAttemptAt = now.addingTimeInterval(delay.timeInterval)
            } else {
                current.status = .failed
                current.completedAt = now
            }
        }
        guard try repositories.deliveries.update(current, ifStatus: .pending) else { return nil }
        try repositories.webhooks.setState(health, sessionID: current.sessionId)
        guard current.status == .delivered else { return nil }
        try repositories.sessions.acknowledge(sequence: current.sequence, sessionID: current.sessionId)
        guard let next = try repositories.deliveries.pendingHead(sessionID: current.sessionId) else { return nil }
        return next.nextAttemptAt <= now ? next : nil
    }
}
