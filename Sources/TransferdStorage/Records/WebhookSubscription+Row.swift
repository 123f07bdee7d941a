import GRDB
import TransferdDomain

/// A webhook's row, read and written column by column: every event appended and every delivery reads it.
extension WebhookSubscription {
    static let table = "webhooks"

    package init(row: StoredRow) throws {
        self.init(
            sessionId: row["session_id"],
            url: row["url"],
            eventTypes: try RowCoding.json(row, "event_types"),
            secret: row["secret"],
            previousSecret: row["previous_secret"],
            previousSecretExpiresAt: row["previous_secret_expires_at"],
            state: try RowCoding.enumeration(row, "state"),
            createdAt: row["created_at"]
        )
    }

    /// Every column of the row, its key (`session_id`) first.
    func storedColumns() throws -> StoredColumns {
        [
            "session_id": sessionId,
            "url": url,
            "event_types": try RowCoding.json(eventTypes),
            "secret": secret,
            "previous_secret": previousSecret,
            "previous_secret_expires_at": StoredDate.text(previousSecretExpiresAt),
            "state": state.rawValue,
            "created_at": StoredDate.text(createdAt),
        ]
    }
}
