import GRDB
import TransferdDomain

/// A delivery attempt's row, read column by column and written through a cached statement (`RowStatements`).
extension DeliveryAttempt {
    static let table = "delivery_attempts"

    package init(row: StoredRow) throws {
        self.init(
            id: row["id"],
            deliveryId: row["delivery_id"],
            attemptedAt: row["attempted_at"],
            statusCode: row["status_code"],
            latencyMs: row["latency_ms"],
            error: row["error"],
            probe: (row["probe"] as Int64) != 0,
            reply: row["reply"]
        )
    }

    /// Every column of the row but `id`.
    func storedColumns() -> StoredColumns {
        [
            "delivery_id": deliveryId,
            "attempted_at": StoredDate.text(attemptedAt),
            "status_code": statusCode,
            "latency_ms": latencyMs,
            "error": error,
            "probe": probe,
            "reply": reply,
        ]
    }
}
