import Foundation
import GRDB
import TransferdDomain

/// The event log and its outbox: an event and its delivery are written in one transaction, so that an
/// event exists if and only if its delivery does (when the session's subscriber takes its type). Appending and the
/// tenant's stream are each database's own (``EventLogPaths``).
struct SQLEventRepository: EventRepository {
    let db: any SQLConnection
    let vault: CredentialVault
    /// Told that the transaction appended events.
    var eventsAppended = EventsAppended()
    /// On PostgreSQL, the transaction's commit position, which its first append takes.
    var numbering: CommitNumbering? = nil
    /// The signals the transaction has announced so far, which the first append notifies.
    var commitActions = CommitActions()

    func append(_ events: [Event]) async throws -> [(event: Event, queuedDelivery: Bool)] {
        eventsAppended.value = eventsAppended.value || !events.isEmpty
        // Announced by the event log once they are appended; notified with the commit's position, where it is taken.
        let announced = Set(commitActions.signals + events.map { .events(sessionID: $0.sessionId) })
        var appended: [(event: Event, subscriber: String??)] = []
        appended.reserveCapacity(events.count)
        var start = events.startIndex
        while start < events.endIndex {
            // The run of events of one session, at most as many as a statement's parameters hold.
            let session = events[start].sessionId
            var end = start
            while end < events.endIndex, events[end].sessionId == session, end - start < 10_000 { end += 1 }
            await appended += try db.eventLog.append(events[start..<end], db, numbering: numbering, announcing: announced)
            start = end
        }
        var queued: [Bool] = []
        var deliveries: [Event] = []
        for (event, subscriber) in appended {
            let delivers =
                try subscriber.map { eventTypes in
                    WebhookSubscription.delivers(event.type, eventTypes: try eventTypes.map { try Self.eventTypes.value($0) })
                } ?? false
            queued.append(delivers)
            if delivers { deliveries.append(event) }
        }
        try await SQLDeliveryRepository(db: db, vault: vault).enqueue(deliveries)
        return zip(appended, queued).map { ($0.event, $1) }
    }

    private static let eventTypes = DecodedTexts<[EventType]>(capacity: 256)

    func list(sessionID: Int64, after sequence: Int64, taskIdentifier: Int64?, limit: Int) async throws -> [Event] {
        guard let taskIdentifier else {
            return try await db.fetchAll(
                "SELECT \(Self.columns) FROM events WHERE session_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
                [sessionID, sequence, limit],
                Event.init(row:)
            )
        }
        return try await db.fetchAll(
            """
            SELECT \(Self.columns) FROM events WHERE session_id = ? AND sequence > ? AND task_identifier = ?
            ORDER BY sequence LIMIT ?
            """,
            [sessionID, sequence, taskIdentifier, limit],
            Event.init(row:)
        )
    }

    func list(
        sessionIdentifier: String,
        tenantID: Int64,
        after sequence: Int64,
        taskIdentifier: Int64?,
        limit: Int
    ) async throws -> (session: Session, events: [Event])? {
        var (session, events): (Session?, [Event]) = (nil, [])
        try await db.forEachRow(
            """
            SELECT s.*, NULL AS event_columns, \(Self.columnsOfE)
            FROM sessions s LEFT JOIN events e ON e.session_id = s.id AND e.sequence > ?\(taskIdentifier == nil ? "" : " AND e.task_identifier = ?")
            WHERE s.id = (SELECT id FROM sessions WHERE tenant_id = ? AND identifier = ? AND deleted_at IS NULL ORDER BY id DESC LIMIT 1)
            ORDER BY e.sequence LIMIT ?
            """,
            [sequence] + (taskIdentifier.map { [$0] } ?? []) + [tenantID, sessionIdentifier, limit]
        ) { row in
            let parts = row.parts(Self.withSessionLayout)
            if session == nil { session = try Session(row: parts[0], vault: vault) }
            if (parts[1]["id"] as Int64?) != nil { events.append(try Event(row: parts[1])) }
        }
        return session.map { ($0, events) }
    }

    private static let withSessionLayout = JoinLayout(after: ["event_columns"])

    func presentCursor() async throws -> TenantEventCursor {
        try await db.eventLog.presentCursor(db)
    }

    func list(tenantID: Int64, after cursor: TenantEventCursor, limit: Int) async throws -> [TenantEvent] {
        let (sql, position) = try await db.eventLog.tenantPage(db, after: cursor)
        return try await db.fetchAll(sql, [tenantID] + position + [limit]) { row in
            let event = try Event(row: row)
            return TenantEvent(
                event: event,
                session: row["session_identifier"],
                cursor: TenantEventCursor(commit: row["commit_position"], id: event.rowID)
            )
        }
    }

    /// Every column an event is read from (PostgreSQL's `transaction_id` is for ordering only).
    static let columns = "id, session_id, sequence, type, task_identifier, data, created_at, traceparent"
    /// `columns` of the events `e`.
    static let columnsOfE = columns.split(separator: ", ").map { "e.\($0)" }.joined(separator: ", ")
}
