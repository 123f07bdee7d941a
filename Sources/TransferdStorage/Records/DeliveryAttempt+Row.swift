import GRDB
import TransferdDomain

/// A delivery attempt's row, read column by column.
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

}
