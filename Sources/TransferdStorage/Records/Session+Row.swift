import Foundation
import GRDB
import TransferdDomain

/// A session's row, read and written column by column: every request under `/v1/sessions/{identifier}` reads its
/// session, and GRDB's `Codable` path with a JSON decoder for the configuration was a tenth of a task lookup's CPU.
/// The task counters and stored bytes are not written here: the tasks' triggers keep them. The configuration is
/// sealed (its headers and proxy may be credentials); its retention periods have columns of their own for the sweepers.
extension Session {
    static let table = "sessions"

    package init(row: StoredRow, vault: CredentialVault) throws {
        self.init(
            identifier: row["identifier"],
            tenantId: row["tenant_id"],
            configuration: try Self.configurations.value(sealed: row["configuration"], vault),
            createdAt: row["created_at"]
        )
        id = row["id"]
        state = try RowCoding.enumeration(row, "state")
        cancelOnInvalidate = row["cancel_on_invalidate"]
        lastSequence = row["last_sequence"]
        lastTaskIdentifier = row["last_task_identifier"]
        lastAcknowledgedSequence = row["last_acknowledged_sequence"]
        invalidatedAt = row["invalidated_at"]
        eventsTrimmedThrough = row["events_trimmed_through"]
        deletedAt = row["deleted_at"]
        credentials = try (row["credentials"] as String?).map { try RowCoding.decode([SealedCredential].self, json: $0) } ?? []
    }

    /// Sessions share few configurations.
    static let configurations = DecodedTexts<SessionConfiguration>(capacity: 1024)

    /// The columns a new session's row is inserted with; its counters start at their columns' defaults.
    func storedColumns(_ vault: CredentialVault) throws -> StoredColumns {
        [
            "identifier": identifier,
            "tenant_id": tenantId,
            "state": state.rawValue,
            "cancel_on_invalidate": cancelOnInvalidate,
            "configuration": try Self.sealed(configuration, vault),
            "retention_period": configuration.retentionPeriod,
            "history_retention": configuration.historyRetention,
            "sends_launch_events": configuration.sessionSendsLaunchEvents,
            "created_at": StoredDate.text(createdAt),
            "invalidated_at": StoredDate.text(orNil: invalidatedAt),
        ]
    }

    /// A configuration as its column holds it.
    static func sealed(_ configuration: SessionConfiguration, _ vault: CredentialVault) throws -> String {
        try vault.seal(text: try RowCoding.json(configuration) ?? "{}")
    }
}
