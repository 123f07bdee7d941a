import Foundation
import GRDB
import TransferdDomain

/// The event log and its outbox: an event and its delivery are written in one transaction, so that an
/// event exists if and only if its delivery does (when the session's subscriber takes its type).
struct SQLEventRepository: EventRepository {
    let db: any SQLConnection

    func append(
        sessionID: Int64,
        type: EventType,
        taskIdentifier: Int64?,
        data: EventData,
        at now: Date,
        traceparent: String?
    ) throws -> (
        event: Event, queuedDelivery: Bool
    ) {
        var event = Event(
            sessionId: sessionID,
            sequence: 0,
            type: type,
            taskIdentifier: taskIdentifier,
            data: data,
            createdAt: now,
            traceparent: traceparent
        )
        let subscriber: String??
        switch db.dialect {
        case .sqlite:
            event.sequence = try SQLSessionRepository.next(.lastSequence, sessionID: sessionID, db)
            event.id = try RowStatements.insert(into: Event.table, try event.storedColumns(), db)
            subscriber = try db.fetchOne("SELECT event_types FROM webhooks WHERE session_id = ?", [sessionID]) { $0[0] as String? }
        case .postgres:
            (event.id, event.sequence, subscriber) = try numberedInsertion(of: event)
        }
        guard let eventTypes = subscriber,
            WebhookSubscription.delivers(type, eventTypes: try eventTypes.map { try Self.eventTypes.value($0) })
        else { return (event, false) }
        try SQLDeliveryRepository(db: db).enqueue(event)
        return (event, true)
    }

    /// On PostgreSQL, one round trip: the session's next sequence, the event's row, and the `event_types` of the
    /// session's subscriber (nil: no subscriber; `.some(nil)`: one that takes every type). Read for every event
    /// appended, one column of the subscriber's row rather than the whole subscription.
    private func numberedInsertion(of event: Event) throws -> (id: Int64, sequence: Int64, subscriber: String??) {
        let row = try db.fetchOne(
            """
            WITH numbered AS (UPDATE sessions SET last_sequence = last_sequence + 1 WHERE id = ? RETURNING last_sequence),
            inserted AS (
                INSERT INTO events (session_id, sequence, type, task_identifier, data, created_at, traceparent)
                SELECT ?, last_sequence, ?, ?, ?, ?, ? FROM numbered RETURNING id, sequence
            )
            SELECT inserted.id, inserted.sequence, webhooks.session_id IS NOT NULL AS subscribed, webhooks.event_types
            FROM inserted LEFT JOIN webhooks ON webhooks.session_id = ?
            """,
            [
                event.sessionId, event.sessionId, event.type.rawValue, event.taskIdentifier, try RowCoding.json(event.data),
                StoredDate.text(event.createdAt), event.traceparent, event.sessionId,
            ]
        ) { row -> (id: Int64, sequence: Int64, subscriber: String??) in
            let subscriber: String?? = (row[2] as Bool) ? .some(row[3] as String?) : .none
            return (id: row[0], sequence: row[1], subscriber: subscriber)
        }
        guard let row else { throw StoreError.rowNotFound("sessions \(event.sessionId)") }
        return row
    }

    private static let eventTypes = DecodedTexts<[EventType]>(capacity: 256)

    func find(id: Int64) throws -> Event? {
        try db.fetchOne("SELECT \(Self.columns) FROM events WHERE id = ?", [id], Event.init(row:))
    }

    func list(sessionID: Int64, after sequence: Int64, taskIdentifier: Int64?, limit: Int) throws -> [Event] {
        guard let taskIdentifier else {
            return try db.fetchAll(
                "SELECT \(Self.columns) FROM events WHERE session_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
                [sessionID, sequence, limit],
                Event.init(row:)
            )
        }
        return try db.fetchAll(
            """
            SELECT \(Self.columns) FROM events WHERE session_id = ? AND sequence > ? AND task_identifier = ?
            ORDER BY sequence LIMIT ?
            """,
            [sessionID, sequence, taskIdentifier, limit],
            Event.init(row:)
        )
    }

    func presentCursor() throws -> TenantEventCursor {
        switch db.dialect {
        case .sqlite:
            // One writer commits in id order: the newest id is the present.
            TenantEventCursor(transaction: 0, id: try db.value("SELECT MAX(id) FROM events") ?? 0)
        case .postgres:
            // Every transaction older than the snapshot's horizon has ended; those from it on may still write.
            TenantEventCursor(
                transaction: try db.value("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint") ?? 0,
                id: 0
            )
        }
    }

    func list(tenantID: Int64, after cursor: TenantEventCursor, limit: Int) throws -> [TenantEvent] {
        let columns = Self.columns.split(separator: ", ").map { "e.\($0)" }.joined(separator: ", ")
        let (order, after) =
            switch db.dialect {
            case .sqlite: ("0", "e.id > ?")
            case .postgres:
                (
                    "e.transaction_id::text::bigint",
                    "(e.transaction_id, e.id) > (CAST(? AS text)::xid8, ?) AND e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())"
                )
            }
        let position: [any DatabaseValueConvertible] =
            db.dialect == .sqlite ? [cursor.id] : [String(cursor.transaction), cursor.id]
        return try db.fetchAll(
            """
            SELECT \(columns), s.identifier AS session_identifier, \(order) AS transaction_order
            FROM events e JOIN sessions s ON s.id = e.session_id
            WHERE s.tenant_id = ? AND \(after) ORDER BY transaction_order, e.id LIMIT ?
            """,
            [tenantID] + position + [limit]
        ) { row in
            let event = try Event(row: row)
            return TenantEvent(
                event: event,
                session: row["session_identifier"],
                cursor: TenantEventCursor(transaction: row["transaction_order"], id: event.rowID)
            )
        }
    }

    /// Every column an event is read from (PostgreSQL's `transaction_id` is for ordering only).
    private static let columns = "id, session_id, sequence, type, task_identifier, data, created_at, traceparent"
}
