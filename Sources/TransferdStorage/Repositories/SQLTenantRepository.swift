import GRDB
import TransferdDomain

/// Tenants, their quotas and their usage, which is summed from what sessions count of their tasks (`stored_bytes`,
/// the task counts) and from the staged files' declared lengths (an upload holds its whole length from its creation).
struct SQLTenantRepository: TenantRepository {
    let db: any SQLConnection
    let vault: CredentialVault

    func eventsTrimmedThrough(id: Int64) async throws -> TenantEventCursor {
        try await db.fetchOne("SELECT events_trimmed_commit, events_trimmed_id FROM tenants WHERE id = ?", [id]) { row in
            TenantEventCursor(commit: row[0], id: row[1])
        } ?? .start
    }

    /// Sealed: its URL may carry a password, and its secret signs.
    func opsWebhook(tenantID: Int64) async throws -> OpsWebhook? {
        guard let sealed: String = try await db.value("SELECT ops_webhook FROM tenants WHERE id = ?", [tenantID]) else { return nil }
        return try RowCoding.decode(OpsWebhook.self, json: try vault.open(text: sealed))
    }

    func setOpsWebhook(_ webhook: OpsWebhook?, name: String) async throws -> Bool {
        let sealed = try webhook.map { try vault.seal(text: try RowCoding.json($0) ?? "") }
        return try await db.execute("UPDATE tenants SET ops_webhook = ? WHERE name = ?", [sealed, name]) > 0
    }

    func standing(id: Int64) async throws -> TenantStanding? {
        try await db.fetchOne(Self.standings + " WHERE t.id = ?", [id], { Self.standing(row: $0) })
    }

    func lockedStanding(id: Int64) async throws -> TenantStanding? {
        _ = try await db.value("SELECT id FROM tenants WHERE id = ?\(db.exclusiveRowLock)", [id]) as Int64?
        return try await standing(id: id)
    }

    func standings() async throws -> [TenantStanding] {
        try await db.fetchAll(Self.standings + " ORDER BY t.name", [], { Self.standing(row: $0) })
    }

    func quotas() async throws -> [Int64: TenantQuota] {
        let rows = try await db.fetchAll(
            """
            SELECT id, max_sessions, max_queued_tasks, max_stored_bytes, max_transfers, max_fetches, bandwidth_schedule FROM tenants
            WHERE max_sessions IS NOT NULL OR max_queued_tasks IS NOT NULL OR max_stored_bytes IS NOT NULL OR max_transfers IS NOT NULL
                OR max_fetches IS NOT NULL OR bandwidth_schedule IS NOT NULL
            """
        ) { row in (row["id"] as Int64, Self.quota(row: row)) }
        return Dictionary(rows) { $1 }
    }

    func setQuota(_ quota: TenantQuota, name: String) async throws -> Bool {
        try await db.execute(
            """
            UPDATE tenants SET max_sessions = ?, max_queued_tasks = ?, max_stored_bytes = ?, max_transfers = ?, max_fetches = ?,
                bandwidth_schedule = ?
            WHERE name = ?
            """,
            [quota.sessions, quota.queuedTasks, quota.storedBytes, quota.transfers, quota.fetches, quota.bandwidthSchedule, name]
        ) > 0
    }

    /// Tenants with what they hold, each sum an index seek over the tenant's own rows.
    static let standings = """
        SELECT t.id, t.name, t.max_sessions, t.max_queued_tasks, t.max_stored_bytes, t.max_transfers, t.max_fetches, t.bandwidth_schedule,
            (SELECT CAST(COUNT(*) AS BIGINT) FROM sessions WHERE tenant_id = t.id AND state <> 'invalidated' AND deleted_at IS NULL) AS sessions,
            (SELECT CAST(COALESCE(SUM(tasks_suspended + tasks_running + tasks_canceling), 0) AS BIGINT) FROM sessions WHERE tenant_id = t.id)
                AS queued,
            (SELECT CAST(COALESCE(SUM(stored_bytes), 0) AS BIGINT) FROM sessions WHERE tenant_id = t.id)
                + (SELECT CAST(COALESCE(SUM(upload_length), 0) AS BIGINT) FROM files WHERE tenant_id = t.id) AS stored
        FROM tenants t
        """

    /// A row of `standings`, its columns' names after `prefix`.
    static func standing(row: StoredRow, prefix: String = "") -> TenantStanding {
        TenantStanding(
            id: row[prefix + "id"],
            name: row[prefix + "name"],
            quota: quota(row: row, prefix: prefix),
            usage: TenantUsage(sessions: row[prefix + "sessions"], queuedTasks: row[prefix + "queued"], storedBytes: row[prefix + "stored"])
        )
    }

    private static func quota(row: StoredRow, prefix: String = "") -> TenantQuota {
        TenantQuota(
            sessions: row[prefix + "max_sessions"],
            queuedTasks: row[prefix + "max_queued_tasks"],
            storedBytes: row[prefix + "max_stored_bytes"],
            transfers: row[prefix + "max_transfers"],
            fetches: row[prefix + "max_fetches"],
            bandwidthSchedule: row[prefix + "bandwidth_schedule"]
        )
    }
}
