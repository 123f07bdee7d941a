import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import TransferdDomain
import TransferdEngine
import TransferdJSON

/// Sends the outbox to subscribers: per session one delivery at a time, in sequence order, so that a later
/// event waits while an earlier one is unacknowledged; sessions are served concurrently. At-least-once: a
/// delivery stays pending until the subscriber answers 2xx, across restarts.
///
/// Across instances sharing a database, a session's deliveries are sent by the instance that holds its delivery
/// lease (`SessionRepository.leaseDeliveries`), claimed one claim at a time, renewed by the `LeaseKeeper` and
/// released when the session has nothing more due or its turn is over; an instance that dies loses it when it
/// expires, and another goes on from the first unacknowledged delivery.
///
/// A session that is claimed keeps sending while its next delivery is due, for up to `turn` deliveries; the
/// transaction that records one answer finds the next (on PostgreSQL with what it sends), so a busy session costs
/// no claim per delivery. Then it goes back in line behind the sessions that have waited longer. The answers that a
/// group commit gathers are recorded together, whatever their sessions (``AnswerRecords``).
///
/// Superseded `task.progress` and `task.upload_progress` deliveries are coalesced when the newer one is written
/// (``DeliveryRepository/enqueue(_:)``), so a slow subscriber gets the latest progress, not a backlog.
///
/// One tenant's subscribers cannot hold the senders while another's wait: the senders are shared across tenants
/// (`FairShare`), and one deadline (`DeliveryPolicy.timeout`) covers a whole attempt, connection, head and body, of
/// which at most `replyLimit` bytes are read.
package struct Dispatcher: Service {
    let store: any Store
    let instance: Instance
    let destinations: DestinationGuard
    let policy: DeliveryPolicy
    let loop: WakeUpLoop
    let concurrency: Int
    let turn: Int
    /// This instance's sessions in flight, shared with the `LeaseKeeper` that renews their leases.
    let sending: SendingSessions
    /// Counts the answers, and times the deliveries from their event's commit to their 2xx.
    let metrics: ServiceMetrics
    /// Where a subscriber's answer to `task.authentication_challenge` (its 2xx reply's body) goes.
    let challenges: TaskService
    /// Records answers and gives sessions back, for every session in a group commit of its own.
    private let recorder: GroupCommit
    private let records: AnswerRecords

    /// The most of a subscriber's reply read: a challenge's answer fits in it.
    static let replyLimit = 64 << 10

    package init(
        store: any Store,
        instance: Instance,
        sending: SendingSessions,
        destinations: DestinationGuard,
        policy: DeliveryPolicy,
        loop: WakeUpLoop,
        concurrency: Int,
        metrics: ServiceMetrics,
        challenges: TaskService,
        turn: Int = 64
    ) {
        self.store = store
        self.instance = instance
        self.sending = sending
        self.destinations = destinations
        self.policy = policy
        self.loop = loop
        self.concurrency = concurrency
        self.turn = turn
        self.metrics = metrics
        self.challenges = challenges
        recorder = GroupCommit(store: store)
        records = AnswerRecords(owner: instance.id, clock: loop.clock, metrics: metrics)
    }

    var clock: any WallClock { loop.clock }
    var logger: Logger { loop.logger }

    package func run() async throws {
        // What this instance held before it stopped (every lease, when it owns the database) is free at once.
        let owner = store.isShared ? instance.id : nil
        try await store.write { try await $0.sessions.expireDeliveryLeases(ownedBy: owner) }
        await withDiscardingTaskGroup { group in
            await loop.run("read the outbox") {
                let (due, nextDue) = try await claimDueDeliveries()
                for head in due {
                    group.addTask {
                        if await send(from: head) {
                            await release(head.sessionId)
                        } else {
                            sending.remove(head.sessionId)
                        }
                        loop.doorbell.ring()
                    }
                }
                return nextDue
            }
            // Attempts in flight are abandoned; they stay pending and go out after a restart.
            group.cancelAll()
        }
    }

    /// Claims the head delivery of every session that is due and that no instance is sending, oldest first, as
    /// many as there are free senders shared fairly across tenants, leasing each session to this instance. Returns them, and when the next head
    /// falls due or another instance's lease expires.
    private func claimDueDeliveries() async throws -> ([Delivery], Date?) {
        let (now, leaseNow, asked) = (clock.now, instance.clock.now, ContinuousClock.now)
        let (busy, owner) = (sending.all, instance.id)
        // Each a statement of its own: when the next lease expires only says when to look again.
        let heads = try await store.lookup { try await $0.deliveries.pendingHeads(exceptSessions: busy, leasableBy: owner, at: leaseNow) }
        let leaseExpiry = try await store.lookup { try await $0.sessions.nextDeliveryLeaseExpiry(notOwnedBy: owner) }
        let due = heads.filter { $0.delivery.nextAttemptAt <= now }
        let candidates = FairShare(capacity: concurrency).pick(due.map { (tenant: $0.tenantID, item: $0) }, holding: sending.byTenant)
        let tenants = Dictionary(candidates.map { ($0.delivery.sessionId, $0.tenantID) }) { first, _ in first }
        let nextDue =
            (heads.map(\.delivery.nextAttemptAt).filter { $0 > now }
            + [leaseExpiry.map { instance.moment($0, on: clock) }].compactMap { $0 })
            .min()
        guard !candidates.isEmpty else { return ([], nextDue) }
        let expiry = instance.leaseExpiry(from: leaseNow)
        // The heads again, in the claim: another instance may have sent some since they were read. The sessions'
        // rows are taken in ascending order, as group commits take them, so that the two never deadlock.
        let claimed = try await store.claim { repositories in
            var claimed: [Delivery] = []
            for sessionID in candidates.map(\.delivery.sessionId).sorted()
            where try await repositories.sessions.leaseDeliveries(sessionID: sessionID, owner: owner, until: expiry, at: leaseNow) {
                guard let head = try await repositories.deliveries.pendingHead(sessionID: sessionID), head.nextAttemptAt <= now else {
                    try await repositories.sessions.releaseDeliveries(sessionID: sessionID, owner: owner)
                    continue
                }
                claimed.append(head)
            }
            return claimed
        }
        for head in claimed {
            sending.insert(head.sessionId, tenant: tenants[head.sessionId] ?? 0, leaseHeldUntil: asked + instance.safeLeaseDuration)
        }
        return (claimed, nextDue)
    }

    /// Sends the session's deliveries in sequence order from `head`, while the next one is due and this instance
    /// holds the session's lease, for one turn. Returns true when the turn ran out with deliveries still due: the
    /// lease is to be given back. (Recording the last one gave it back otherwise.)
    private func send(from head: Delivery) async -> Bool {
        var next: DueDelivery? = DueDelivery(head, content: nil)
        for _ in 0..<turn {
            guard let due = next, !Task.isCancelled, sending.holdsLease(head.sessionId) else { return false }
            next = await deliver(due)
        }
        return next != nil
    }

    /// The turn is over: the session's lease goes back, for whichever instance claims it next.
    private func release(_ sessionID: Int64) async {
        do {
            _ = try await recorder.write(.giveBack(sessionID: sessionID), by: records, forSession: sessionID)
        } catch {
            logger.warning(
                "could not release a session's delivery lease; it expires",
                metadata: ["session": "\(sessionID)", "error": "\(error)"]
            )
        }
        sending.remove(sessionID)
    }

    /// One attempt: POST the signed payload and record how the subscriber answered. Returns the session's next
    /// delivery when it is due now (after a 2xx).
    private func deliver(_ due: DueDelivery) async -> DueDelivery? {
        let delivery = due.delivery
        do {
            let read =
                if let content = due.content { content } else { try await store.lookup { try await $0.deliveries.content(of: delivery) } }
            guard let content = read else { return nil }
            let (event, webhook) = (content.event, content.webhook)
            let attemptedAt = clock.now
            let body = try WebhookPayload(event: event, sessionIdentifier: content.sessionIdentifier, task: content.task, now: attemptedAt)
                .encoded()
            let timestamp = Int(attemptedAt.timeIntervalSince1970)
            var request = HTTPClientRequest.transfer(to: webhook.url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "User-Agent", value: "transferd")
            request.headers.add(name: "webhook-id", value: delivery.messageId)
            if let traceparent = event.traceparent { request.headers.add(name: "traceparent", value: traceparent) }
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
                let route = try await destinations.route(for: request.url)
                let (timeout, wantsReply) = (policy.timeout, event.type == .taskAuthenticationChallenge)
                let exchange = try await withDeadline(timeout) { [request] in
                    try await Self.exchange(request, through: route, keepingReply: wantsReply)
                }
                answer = .answered(status: exchange.status, retryAfter: RetryAfter.parse(exchange.retryAfter, now: clock.now))
                if let task = event.taskIdentifier, exchange.reply.readableBytes > 0 {
                    await answerChallenge(exchange.reply, sessionID: delivery.sessionId, taskIdentifier: task)
                }
            } catch let exceeded as DeadlineExceeded {
                answer = .failed("The subscriber did not answer, body included, within \(exceeded.limit.timeInterval) s.")
            } catch {
                if Task.isCancelled { return nil }
                answer = .failed(TransferError(transportError: error).message)
            }
            let (latency, now) = (ContinuousClock.now - started, clock.now)
            let answered = AnsweredDelivery(delivery, answer: answer, attemptedAt: attemptedAt, latency: latency, now: now, policy: policy)
            return try await recorder.write(
                .answer(answered, eventWrittenAt: event.createdAt, at: now),
                by: records,
                forSession: delivery.sessionId
            )
        } catch {
            logger.error("webhook delivery failed", metadata: ["delivery": "\(delivery.messageId)", "error": "\(error)"])
            return nil
        }
    }

    /// How a subscriber answered one attempt: its status, `Retry-After`, and its 2xx reply when `keepingReply` (a
    /// challenge's answer, the completion handler in the same round trip). At most `replyLimit` bytes of the body
    /// are read; a longer reply answers nothing, its connection closed, and the delivery still counts.
    /// The deadline is the caller's, on the whole exchange.
    private static func exchange(
        _ request: HTTPClientRequest,
        through route: DestinationGuard.Route,
        keepingReply: Bool
    ) async throws -> (status: Int, retryAfter: String?, reply: ByteBuffer) {
        let response = try await route.execute(request, deadline: .distantFuture)
        let keeping = keepingReply && (200..<300).contains(response.status.code)
        var (reply, read) = (ByteBuffer(), 0)
        for try await chunk in response.body {
            read += chunk.readableBytes
            guard read <= replyLimit else { return (Int(response.status.code), response.headers.first(name: "retry-after"), ByteBuffer()) }
            if keeping { reply.writeImmutableBuffer(chunk) }
        }
        return (Int(response.status.code), response.headers.first(name: "retry-after"), reply)
    }

    /// Applies the answer a subscriber's reply to `task.authentication_challenge` holds, if it holds one (an empty
    /// or non-JSON body answers nothing); a refused answer is logged, the delivery still counts.
    private func answerChallenge(_ reply: ByteBuffer, sessionID: Int64, taskIdentifier: Int64) async {
        guard (try? StrictJSON.validate(reply.readableBytesView)) != nil,
            let body = try? JSONDecoder().decode(ChallengeAnswerBody.self, from: Data(reply.readableBytesView))
        else { return }
        do {
            _ = try await challenges.answerChallenge(try body.validate(), sessionID: sessionID, taskIdentifier: taskIdentifier)
        } catch {
            logger.notice("a webhook's answer to a challenge was refused", metadata: ["task": "\(taskIdentifier)", "error": "\(error)"])
        }
    }
}
