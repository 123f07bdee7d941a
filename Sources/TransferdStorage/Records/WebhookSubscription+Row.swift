import GRDB
import TransferdDomain

/// A webhook's row, read and written column by column: every event appended and every delivery reads it.
extension WebhookSubscription {
    package init(row: Row) throws {
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

    package func encode(to container: inout PersistenceContainer) throws {
        container["session_id"] = sessionId
        container["url"] = url
        container["event_types"] = try RowCoding.json(eventTypes)
        container["secret"] = secret
        container["previous_secret"] = previousSecret
        container["previous_secret_expires_at"] = StoredDate.text(previousSecretExpiresAt)
        container["state"] = state.rawValue
        container["created_at"] = StoredDate.text(createdAt)
    }
}
