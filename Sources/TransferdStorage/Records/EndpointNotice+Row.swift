import GRDB
import TransferdDomain

/// An endpoint notice's row.
extension EndpointNotice {
    static let table = "webhook_notices"

    init(row: StoredRow) throws {
        self.init(
            id: row["id"],
            tenantId: row["tenant_id"],
            endpointKey: row["endpoint_key"],
            reason: row["reason"],
            createdAt: row["created_at"],
            logged: (row["logged"] as Int64) != 0,
            opsAttempts: row["ops_attempts"],
            opsNextAttemptAt: row["ops_next_attempt_at"],
            opsLastError: row["ops_last_error"]
        )
    }

    /// Every column of the row but `id`.
    func storedColumns() -> StoredColumns {
        [
            "tenant_id": tenantId,
            "endpoint_key": endpointKey,
            "reason": reason,
            "created_at": StoredDate.text(createdAt),
            "logged": logged,
            "ops_attempts": opsAttempts,
            "ops_next_attempt_at": StoredDate.text(orNil: opsNextAttemptAt),
            "ops_last_error": opsLastError,
        ]
    }
}
