import Foundation
import Logging
import NIOCore
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
/// transaction that records one answer finds the next with what it sends, so a busy session costs
/// no claim per delivery. Then it goes back in line behind the sessions that have waited longer. The answers that a
/// group commit gathers are recorded together, whatever their sessions (``AnswerRecords``).
///
/// Superseded `task.progress` and `task.upload_progress` deliveries are coalesced when the newer one is written
/// (``DeliveryRepository/enqueue(_:)``), so a slow subscriber gets the latest progress, not a backlog.
///
/// While a session's endpoint fails, its heads wait for one probe at a time, and the first 2xx makes every session's
/// waiting head due at once (``EndpointHealthMachine``, ``DueHeads``); each delivery's own retries follow its
/// long schedule, which alone dead-letters it (``DeliveryStateMachine``). The dispatcher decides nothing itself: it
/// applies what the machines say, and `WebhookSender` makes the HTTP exchange.
///
/// One tenant's subscribers cannot hold the senders while another's wait: the senders are shared across tenants
/// (`FairShare`), and one deadline (`DeliveryPolicy.timeout`) covers a whole attempt.
package struct Dispatcher: Service {
    let store: any Store
    let instance: Instance
    let sender: WebhookSender
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
    /// Endpoints' rate limits, shared by every session sending to one.
    private let limits = EndpointRateLimits()

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
        self.sender = WebhookSender(destinations: destinations, timeout: policy.timeout, clock: loop.clock)
        self.policy = policy
        self.loop = loop
        self.concurrency = concurrency
        self.turn = turn
        self.metrics = metrics
        self.challenges = challenges
        recorder = GroupCommit(store: store)
        records = AnswerRecords(owner: instance.id, clock: loop.clock, policy: policy, metrics: metrics)
    }

    var clock: any WallClock { loop.clock }
    var logger: Logger { loop.logger }

    package func run() async throws {
        // What this instance held before it stopped (every lease, when it owns the database) is free at once.
        let owner = instance.leftoverLeasesOwner
        try await store.write { try await $0.sessions.expireDeliveryLeases(ownedBy: owner) }
        await withDiscardingTaskGroup { group in
            await loop.run("read the outbox") {
                let (due, nextDue) = try await claimDueDeliveries()
                for (head, probe, limit) in due {
                    group.addTask {
                        if await send(from: head, probe: probe, limit: limit) {
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

    /// Claims the head delivery of every session that is due (``DueHeads``) and that no instance is sending, oldest
    /// first, as many as there are free senders shared fairly across tenants, leasing each session to this instance.
    /// A rate-limited endpoint's heads go while its bucket has tokens. Returns them, each with whether it goes as its
    /// endpoint's probe and its endpoint's limit, and when the next head, retry, probe or token falls due or another
    /// instance's lease expires. Endpoints that came back are caught up first.
    private func claimDueDeliveries() async throws -> ([(Delivery, probe: Bool, limit: RateLimit?)], Date?) {
        let (now, leaseNow, asked) = (clock.now, instance.clock.now, ContinuousClock.now)
        let (busy, owner) = (sending.all, instance.id)
        // Each a statement of its own: when the next lease expires only says when to look again.
        let heads = try await store.lookup { try await $0.deliveries.pendingHeads(exceptSessions: busy, leasableBy: owner, at: leaseNow) }
        let leaseExpiry = try await store.lookup { try await $0.sessions.nextDeliveryLeaseExpiry(notOwnedBy: owner) }
        let due = DueHeads(heads, now: now)
        guard due.catchingUp.isEmpty else {
            for key in due.catchingUp { try await catchUp(key, at: now) }
            return ([], now)
        }
        var nextDue = [due.nextDue, leaseExpiry.map { instance.moment($0, on: clock) }].compactMap { $0 }.min()
        let candidates = FairShare(capacity: concurrency).pick(
            due.picks.map { (tenant: $0.head.tenantID, item: $0) },
            holding: sending.byTenant
        )
        .filter { pick in
            guard let nextToken = limits.take(pick.head.endpointKey, rate: pick.head.maxDeliveriesPerSecond, at: now) else { return true }
            nextDue = min(nextDue ?? nextToken, nextToken)
            return false
        }
        let tenants = Dictionary(candidates.map { ($0.head.delivery.sessionId, $0.head.tenantID) }) { first, _ in first }
        let rateLimits = Dictionary(
            candidates.compactMap { pick -> (Int64, RateLimit)? in
                guard let key = pick.head.endpointKey, let rate = pick.head.maxDeliveriesPerSecond else { return nil }
                return (pick.head.delivery.sessionId, RateLimit(key: key, rate: rate))
            }
        ) { first, _ in first }
        guard !candidates.isEmpty else { return ([], nextDue) }
        let expiry = instance.leaseExpiry(from: leaseNow)
        let probeUntil = now.addingTimeInterval((policy.timeout + .seconds(5)).timeInterval)
        // The heads again, in the claim: another instance may have sent some since they were read. The sessions'
        // rows are taken in ascending order, as group commits take them, so that the two never deadlock.
        let probes = Dictionary(candidates.filter(\.probe).map { ($0.head.delivery.sessionId, $0.head.endpointKey ?? "") }) { first, _ in
            first
        }
        var claimed = try await store.claim { repositories in
            var claimed: [(Delivery, probe: Bool)] = []
            for sessionID in candidates.map(\.head.delivery.sessionId).sorted()
            where try await repositories.sessions.leaseDeliveries(sessionID: sessionID, owner: owner, until: expiry, at: leaseNow) {
                guard let head = try await repositories.deliveries.pendingHead(sessionID: sessionID),
                    probes[sessionID] != nil || head.nextAttemptAt <= now
                else {
                    try await repositories.sessions.releaseDeliveries(sessionID: sessionID, owner: owner)
                    continue
                }
                claimed.append((head, probes[sessionID] != nil))
            }
            return claimed
        }
        // Each probe's endpoint, in a transaction of its own (a claim has none, and an answer's group commit may be
        // changing it): a probe another instance sent meanwhile, or an endpoint no longer failing, sends none.
        for (index, (head, probe)) in claimed.enumerated().reversed() where probe {
            guard try await !claimProbe(of: probes[head.sessionId] ?? "", until: probeUntil, at: now) else { continue }
            claimed.remove(at: index)
            try await store.write { try await $0.sessions.releaseDeliveries(sessionID: head.sessionId, owner: owner) }
        }
        for (head, _) in claimed {
            sending.insert(head.sessionId, tenant: tenants[head.sessionId] ?? 0, leaseHeldUntil: asked + instance.safeLeaseDuration)
        }
        return (claimed.map { ($0.0, $0.probe, rateLimits[$0.0.sessionId]) }, nextDue)
    }

    /// Claims the endpoint's probe until `until`, if its machine says one is to go now.
    private func claimProbe(of key: String, until: Date, at now: Date) async throws -> Bool {
        try await store.write { repositories in
            try await repositories.endpoints.handle(.probeClaimed(until: until), key: key, policy: policy, at: now)?.action == .sendProbe
        }
    }

    /// The endpoint came back: every session's waiting head is due now, and then it is healthy. The heads' rows
    /// are taken before the endpoint's, as group commits take theirs before it.
    private func catchUp(_ key: String, at now: Date) async throws {
        try await store.write { repositories in
            let madeDue = try await repositories.deliveries.makeHeadsDue(endpointKey: key, DeliveryStateMachine.endpointRecovered(at: now))
            guard try await repositories.endpoints.handle(.caughtUp, key: key, policy: policy, at: now)?.action == .finishCatchUp else {
                return
            }
            logger.info("a webhook endpoint came back; its sessions' waiting deliveries are due", metadata: ["heads": "\(madeDue)"])
        }
    }

    /// Sends the session's deliveries in sequence order from `head`, while the next one is due, this instance holds
    /// the session's lease and its endpoint's `limit` has a token, for one turn; the first goes as its endpoint's
    /// probe when `probe`. Returns true when the turn ended with deliveries still due: the lease is to be given back.
    /// (Recording the last one gave it back otherwise.)
    private func send(from head: Delivery, probe: Bool, limit: RateLimit?) async -> Bool {
        var next: DueDelivery? = DueDelivery(head, content: nil)
        var probing = probe
        for _ in 0..<turn {
            guard let due = next, !Task.isCancelled, sending.holdsLease(head.sessionId) else { return false }
            if due.delivery.rowID != head.rowID, limits.take(limit?.key, rate: limit?.rate, at: clock.now) != nil { return true }
            next = await deliver(due, probe: probing)
            probing = false
        }
        return next != nil
    }

    /// An endpoint's key and its most deliveries a second.
    struct RateLimit: Sendable {
        let key: String
        let rate: Double
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

    /// One attempt: send the delivery and record how the subscriber answered. Returns the session's next delivery
    /// when it is due now (after a 2xx). Its log lines name the session and the delivery.
    private func deliver(_ due: DueDelivery, probe: Bool) async -> DueDelivery? {
        await LogContext.with(["session": "\(due.delivery.sessionId)", "delivery": "\(due.delivery.messageId)"]) {
            await attempt(due, probe: probe)
        }
    }

    private func attempt(_ due: DueDelivery, probe: Bool) async -> DueDelivery? {
        let delivery = due.delivery
        do {
            let read =
                if let content = due.content { content } else { try await store.lookup { try await $0.deliveries.content(of: delivery) } }
            guard let content = read else { return nil }
            let event = content.event
            guard
                let exchange = try await sender.send(
                    content,
                    messageID: delivery.messageId,
                    keepingReply: event.type == .taskAuthenticationChallenge
                )
            else { return nil }
            if let task = event.taskIdentifier, exchange.reply.readableBytes > 0 {
                await answerChallenge(exchange.reply, sessionID: delivery.sessionId, taskIdentifier: task)
            }
            let now = clock.now
            let endpoint = content.webhook.endpointKey.map { key in
                (key: key, tenantID: sending.tenant(of: delivery.sessionId) ?? 0, state: content.webhook.state)
            }
            let answered = AnsweredDelivery(
                delivery,
                answer: exchange.answer,
                probe: probe,
                reply: exchange.excerpt,
                endpoint: endpoint,
                attemptedAt: exchange.attemptedAt,
                latency: exchange.latency,
                now: now,
                policy: policy
            )
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
