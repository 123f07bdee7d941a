import TransferdDomain

/// An API key's row, read and written column by column; it is keyed by its public `id`.
extension APIKey {
    static let table = "api_keys"

    package init(row: StoredRow) {
        self.init(
            id: row["id"],
            tenantId: row["tenant_id"],
            name: row["name"],
            secretSha256: row["secret_sha256"],
            admin: row["admin"],
            createdAt: row["created_at"],
            revokedAt: row["revoked_at"]
        )
    }

    /// Every column of the row.
    func storedColumns() -> StoredColumns {
        [
            "id": id,
            "tenant_id": tenantId,
            "name": name,
            "secret_sha256": secretSha256,
            "admin": admin,
            "created_at": StoredDate.text(createdAt),
            "revoked_at": StoredDate.text(orNil: revokedAt),
        ]
    }
}
