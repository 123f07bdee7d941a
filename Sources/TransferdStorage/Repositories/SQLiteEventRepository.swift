import Foundation
import GRDB
import TransferdDomain

/// The event log and its outbox on SQLite: an event and its delivery are written in one transaction, so that an
/// event exists if and only if its delivery does (when the session's subscriber takes its type).
struct SQLiteEventRepository: EventRepository {
    let db: Database

    func append(
        sessionID: Int64,
        type: EventType,
        taskIdentifier: Int64?,
        data: EventData,
        at now: Date
    ) throws -> (
        event: Event, queuedDelivery: Bool
    ) {
        let sequence = try SQLiteSessionRepository(db: db).next(.lastSequence, sessionID: sessionID)
        var event = Event(sessionId: sessionID, sequence: sequence, type: type, taskIdentifier: taskIdentifier, data: data, createdAt: now)
        event.id = try RowStatements.insert(into: Event.databaseTableName, try event.storedColumns(), db)
        guard try subscriberTakes(type, sessionID: sessionID) else { return (event, false) }
        try SQLiteDeliveryRepository(db: db).enqueue(event)
        return (event, true)
    }

    /// Whether the session has a subscriber (enabled or not) that takes events of `type`: one column of its row,
    /// read for every event appended, rather than the whole subscription.
    private func subscriberTakes(_ type: EventType, sessionID: Int64) throws -> Bool {
        let statement = try db.cachedStatement(sql: "SELECT event_types FROM webhooks WHERE session_id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [sessionID]) else { return false }
        let eventTypes = try (row[0] as String?).map { try Self.eventTypes.value($0) }
        return WebhookSubscription.delivers(type, eventTypes: eventTypes)
    }

    private static let eventTypes = DecodedJSONTexts<[EventType]>(capacity: 256)

    func find(id: Int64) throws -> Event? {
        try SQLRequest<Event>(sql: "SELECT * FROM events WHERE id = ?", arguments: [id], cached: true).fetchOne(db)
    }

    func list(sessionID: Int64, after sequence: Int64, limit: Int) throws -> [Event] {
        try SQLRequest<Event>(
            literal: "SELECT * FROM events WHERE session_id = \(sessionID) AND sequence > \(sequence) ORDER BY sequence LIMIT \(limit)",
            cached: true
        ).fetchAll(db)
    }
}
