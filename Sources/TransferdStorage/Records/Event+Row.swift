import GRDB
import TransferdDomain

/// An event's row, read and written column by column: every delegate callback appends one, and every events page
/// and webhook delivery reads them (GRDB's `Codable` path costs a keyed container and a conformance check per value).
extension Event {
    static let table = "events"

    package init(row: StoredRow) throws {
        self.init(
            id: row["id"],
            sessionId: row["session_id"],
            sequence: row["sequence"],
            taskIdentifier: row["task_identifier"],
            payload: try RowCoding.payload(row, type: RowCoding.enumeration(row, "type")),
            createdAt: row["created_at"],
            traceparent: row["traceparent"]
        )
    }

    /// Every column of the row but `id`.
    func storedColumns() throws -> StoredColumns {
        [
            "session_id": sessionId,
            "sequence": sequence,
            "type": type.rawValue,
            "task_identifier": taskIdentifier,
            "data": try RowCoding.json(payload),
            "created_at": StoredDate.text(createdAt),
            "traceparent": traceparent,
        ]
    }
}
