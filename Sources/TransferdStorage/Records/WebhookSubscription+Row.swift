import GRDB
import TransferdDomain

/// A webhook's row, read and written column by column: every event appended and every delivery reads it. Its URL
/// (which may carry a password) and secrets are sealed. Its state is its endpoint's, read by a join.
extension WebhookSubscription {
    static let table = "webhooks"

    /// The columns of the subscription `w` with its endpoint's state, as `init(row:vault:)` reads them, from `w`
    /// joined by `endpointJoin`.
    static let columns = "w.*, ep.state AS endpoint_state, ep.last_error AS endpoint_last_error"
    static let endpointJoin = "LEFT JOIN \(WebhookEndpoint.table) ep ON ep.key = w.endpoint_key"

    /// The key of the endpoint `url` is for the tenant (``WebhookEndpoint``).
    static func endpointKey(tenantID: Int64, url: String, vault: CredentialVault) -> String {
        vault.fingerprint("\(tenantID) \(url)")
    }

    package init(row: StoredRow, vault: CredentialVault) throws {
        func opened(_ sealed: String) throws -> String {
            try Self.openedTexts.value(sealed) { try vault.open(text: $0) }
        }
        func secret(_ sealed: String, _ column: String) throws -> WebhookSecret {
            guard let secret = WebhookSecret(try opened(sealed)) else {
                throw StoreError.corruptValue("column \(column) holds no whsec_ secret")
            }
            return secret
        }
        self.init(
            sessionId: row["session_id"],
            url: try opened(row["url"]),
            eventTypes: try RowCoding.json(row, "event_types"),
            secret: try secret(row["secret"], "secret"),
            previousSecret: try (row["previous_secret"] as String?).map { try secret($0, "previous_secret") },
            previousSecretExpiresAt: row["previous_secret_expires_at"],
            state: try WebhookEndpoint.shownState(row["endpoint_state"]),
            endpointKey: row["endpoint_key"],
            endpointLastError: row["endpoint_last_error"],
            maxDeliveriesPerSecond: row["max_deliveries_per_second"],
            createdAt: row["created_at"]
        )
    }

    /// Every column of the row, its key (`session_id`) first; its state is its endpoint's, not stored here.
    func storedColumns(_ vault: CredentialVault) throws -> StoredColumns {
        [
            "session_id": sessionId,
            "url": try vault.seal(text: url),
            "event_types": try RowCoding.json(eventTypes),
            "secret": try vault.seal(text: secret.value),
            "previous_secret": try previousSecret.map { try vault.seal(text: $0.value) },
            "previous_secret_expires_at": StoredDate.text(orNil: previousSecretExpiresAt),
            "endpoint_key": endpointKey,
            "max_deliveries_per_second": maxDeliveriesPerSecond,
            "created_at": StoredDate.text(createdAt),
        ]
    }

    /// The opened URLs and secrets, by their sealed texts: every event appended reads its session's webhook.
    private static let openedTexts = DecodedTexts<String>(capacity: 1024)
}
