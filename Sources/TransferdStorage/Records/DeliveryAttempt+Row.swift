import GRDB
import TransferdDomain

/// A delivery attempt's row, written column by column: one per webhook attempt.
extension DeliveryAttempt {
    package init(row: Row) throws {
        self.init(
            id: row["id"],
            deliveryId: row["delivery_id"],
            attemptedAt: row["attempted_at"],
            statusCode: row["status_code"],
            latencyMs: row["latency_ms"],
            error: row["error"]
        )
    }

    package func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["delivery_id"] = deliveryId
        container["attempted_at"] = StoredDate.text(attemptedAt)
        container["status_code"] = statusCode
        container["latency_ms"] = latencyMs
        container["error"] = error
    }
}
