import GRDB
import TransferdDomain

/// A delivery's row, read and written column by column: the dispatcher reads and updates one per webhook attempt.
extension Delivery {
    package init(row: Row) throws {
        self.init(
            id: row["id"],
            sessionId: row["session_id"],
            eventId: row["event_id"],
            sequence: row["sequence"],
            eventType: try RowCoding.enumeration(row, "event_type"),
            taskIdentifier: row["task_identifier"],
            messageId: row["message_id"],
            status: try RowCoding.enumeration(row, "status"),
            attemptCount: row["attempt_count"],
            nextAttemptAt: row["next_attempt_at"],
            lastError: row["last_error"],
            createdAt: row["created_at"],
            completedAt: row["completed_at"]
        )
    }

    package func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["session_id"] = sessionId
        container["event_id"] = eventId
        container["sequence"] = sequence
        container["event_type"] = eventType.rawValue
        container["task_identifier"] = taskIdentifier
        container["message_id"] = messageId
        container["status"] = status.rawValue
        container["attempt_count"] = attemptCount
        container["next_attempt_at"] = StoredDate.text(nextAttemptAt)
        container["last_error"] = lastError
        container["created_at"] = StoredDate.text(createdAt)
        container["completed_at"] = StoredDate.text(completedAt)
    }
}
