import Foundation

/// The outbox's deliveries and their attempts.
package protocol DeliveryRepository {
    func find(id: Int64) async throws -> Delivery?
    func find(eventID: Int64) async throws -> Delivery?
    /// What an attempt of `delivery` sends, in one statement; nil when its event, session or subscriber is gone.
    func content(of delivery: Delivery) async throws -> DeliveryContent?
    /// Writes what an attempt or a retry changes (status, attempt count, next attempt, error, completion) when the
    /// delivery's stored status is still `expected`; false, writing nothing, when it is not.
    func update(_ delivery: Delivery, ifStatus expected: Delivery.Status) async throws -> Bool
    /// The session's deliveries after row id `cursor`, optionally with one status, each with its attempts.
    func list(sessionID: Int64, after cursor: Int64, status: Delivery.Status?, limit: Int) async throws -> [(Delivery, [DeliveryAttempt])]
    func list(sessionID: Int64, status: Delivery.Status) async throws -> [Delivery]
    /// Puts back in the queue, as `change` does (``DeliveryStateMachine`` retrying a dead-lettered delivery: no
    /// attempts yet, due now, `webhook-id` kept), every dead-lettered delivery in `scope` whose event was written at
    /// `since` or later, of sessions that have a subscriber; returns their sessions, one entry a delivery.
    func recoverFailed(_ scope: DeliveryScope, since: Date, _ change: DeliveryChange) async throws -> [Int64]
    /// Makes `change` to every delivery of the session it applies to (of its status).
    func apply(_ change: DeliveryChange, sessionID: Int64) async throws
    /// Queues the deliveries of events just written. A progress delivery supersedes the pending progress of the
    /// same task and type before it, which change as ``DeliveryStateMachine`` supersedes one, but for the session's
    /// head (it may be in flight).
    func enqueue(_ events: [Event]) async throws
    /// The oldest pending delivery of every session whose subscriber is enabled and whose deliveries `owner` could
    /// lease at `now` (no other instance holds them), except the sessions given, with the session's tenant; the
    /// earliest due first. One statement on PostgreSQL.
    func pendingHeads(exceptSessions: [Int64], leasableBy owner: String, at now: Date) async throws -> [DeliveryHead]
    /// The session's oldest pending delivery, when its subscriber is enabled.
    func pendingHead(sessionID: Int64) async throws -> Delivery?
    /// Records subscribers' answers, each for another session, whose delivery leases `owner` holds. For each:
    /// its attempt; then, when the delivery is still pending, what the answer changed of it (`update(_:ifStatus:)`)
    /// and the subscriber's health, and when the answer delivered it, that the subscriber acknowledged its event
    /// (and so every earlier one). Returns, for each, whether its delivery was still pending and, when the answer
    /// delivered it, the session's next pending delivery if that is due by `now` (while its subscriber is enabled),
    /// with its content.
    /// A session whose answer returns no next delivery, and every session in `releasing`, is given back: `owner`'s
    /// lease of its deliveries ends. One statement on PostgreSQL, which takes the sessions' rows in ascending order.
    func record(
        _ answers: [AnsweredDelivery],
        releasing: [Int64],
        leasedTo owner: String,
        dueBy now: Date
    ) async throws -> [(recorded: Bool, next: DueDelivery?)]
    /// Makes `change` (``DeliveryStateMachine`` on an endpoint's recovery) to the waiting head of every session whose
    /// subscriber has the endpoint; returns how many it made due earlier.
    func makeHeadsDue(endpointKey: String, _ change: DeliveryChange) async throws -> Int
    /// When the oldest waiting delivery of each tenant's sessions was written, for the tenants that have one.
    func oldestPending() async throws -> [Int64: Date]
    /// How many deliveries wait to be sent, in every session.
    func countPending() async throws -> Int
}
