import Foundation
import GRDB

/// The durable, per-session, gap-free sequence of events: appended inside the transaction that causes them
/// (together with their webhook deliveries), read by polling or long-polling.
struct EventLog: Sendable {
    let database: AppDatabase
    let signal: EventSignal
    let outbox: Outbox

    /// Appends one event to the session's log within the caller's write transaction; readers wake after the commit.
    @discardableResult
    func append(
        _ db: Database,
        sessionID: Int64,
        type: EventType,
        taskIdentifier: Int64? = nil,
        data: EventData = EventData()
    ) throws
        -> Event
    {
        let sequence = try Int64.fetchOne(
            db,
            sql: "UPDATE sessions SET last_sequence = last_sequence + 1 WHERE id = ? RETURNING last_sequence",
            arguments: [sessionID]
        )
        guard let sequence else { throw DatabaseError(resultCode: .SQLITE_NOTFOUND, message: "session \(sessionID) is gone") }
        var event = Event(
            sessionId: sessionID,
            sequence: sequence,
            type: type,
            taskIdentifier: taskIdentifier,
            data: data,
            createdAt: Date()
        )
        try event.insert(db)
        try outbox.enqueue(event, db)
        let signal = self.signal
        db.afterNextTransaction { _ in signal.notify(sessionID: sessionID) }
        return event
    }

    /// Appends an event about `task` to its session's log, within the caller's write transaction.
    @discardableResult
    func append(_ db: Database, _ type: EventType, for task: TransferTask, data: EventData = EventData()) throws -> Event {
        try append(db, sessionID: task.sessionId, type: type, taskIdentifier: task.taskIdentifier, data: data)
    }

    /// Events of the session after `sequence`, oldest first; waits up to `wait` for the first one if there is none yet.
    func events(sessionID: Int64, after sequence: Int64, limit: Int, wait: Duration) async throws -> [Event] {
        let deadline = ContinuousClock.now + wait
        while true {
            let seen = signal.version(sessionID: sessionID)
            let events = try await database.pool.read { db in
                try Event
                    .filter(Event.Columns.sessionId == sessionID && Event.Columns.sequence > sequence)
                    .order(Event.Columns.sequence)
                    .limit(limit)
                    .fetchAll(db)
            }
            let remaining = deadline - ContinuousClock.now
            if !events.isEmpty || remaining <= .zero || Task.isCancelled {
                return events
            }
            await signal.wait(sessionID: sessionID, seen: seen, timeout: remaining)
        }
    }
}
