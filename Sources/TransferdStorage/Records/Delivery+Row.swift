import GRDB
import TransferdDomain

/// A delivery's row, read column by column and inserted through a cached statement (`RowStatements`): every event
/// a subscriber takes queues one, and the dispatcher reads and updates one per webhook attempt.
extension Delivery {
    static let table = "deliveries"

    package init(row: StoredRow) throws {
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

    /// Every column of the row but `id`.
    func storedColumns() -> StoredColumns {
        [
            "session_id": sessionId,
            "event_id": eventId,
            "sequence": sequence,
            "event_type": eventType.rawValue,
            "task_identifier": taskIdentifier,
            "message_id": messageId,
            "status": status.rawValue,
            "attempt_count": attemptCount,
            "next_attempt_at": StoredDate.text(nextAttemptAt),
            "last_error": lastError,
            "created_at": StoredDate.text(createdAt),
            "completed_at": StoredDate.text(orNil: completedAt),
        ]
    }
}
