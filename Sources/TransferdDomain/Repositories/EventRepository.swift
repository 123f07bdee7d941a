import Foundation

/// The per-session, gap-free event log, and its outbox.
package protocol EventRepository {
    /// Appends events, each with its session's next sequence (their `sequence` is ignored), and the webhook
    /// delivery of each whose session's subscriber takes its type, in the caller's transaction. Returns them as
    /// stored, in order, each with whether a delivery was queued for it. On PostgreSQL the events of one session are
    /// one statement, however many.
    func append(_ events: [Event]) async throws -> [(event: Event, queuedDelivery: Bool)]
    /// The session's events after `sequence`, oldest first; only one task's when `taskIdentifier` is given.
    func list(sessionID: Int64, after sequence: Int64, taskIdentifier: Int64?, limit: Int) async throws -> [Event]
    /// The tenant's session with this identifier, as ``SessionRepository/latest(identifier:tenantID:)`` finds it,
    /// with its events as ``list(sessionID:after:taskIdentifier:limit:)`` reads them, in one statement; nil when
    /// there is no such session.
    func list(
        sessionIdentifier: String,
        tenantID: Int64,
        after sequence: Int64,
        taskIdentifier: Int64?,
        limit: Int
    ) async throws -> (session: Session, events: [Event])?
    /// The events of every session of the tenant after `cursor`, in the order `TenantEventCursor` describes.
    func list(tenantID: Int64, after cursor: TenantEventCursor, limit: Int) async throws -> [TenantEvent]
    /// A cursor at the present: every event written from now on comes after it (on PostgreSQL, so may a few
    /// written just before, by transactions that overlapped an older one still running).
    func presentCursor() async throws -> TenantEventCursor
}
