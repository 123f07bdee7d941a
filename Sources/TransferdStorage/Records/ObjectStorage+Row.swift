import TransferdDomain

/// A store's row: its settings in columns, the secret sealed.
extension ObjectStorage {
    static let table = "object_storages"

    init(row: StoredRow, vault: CredentialVault) throws {
        try self.init(
            tenantID: row["tenant_id"],
            name: row["name"],
            settings: ObjectStorageSettings(
                endpoint: row["endpoint"],
                region: row["region"],
                bucket: row["bucket"],
                accessKeyId: row["access_key_id"],
                secretAccessKey: try vault.open(text: row["secret_sealed"]),
                pathStyle: (row["path_style"] as Int64) != 0
            ),
            createdAt: row["created_at"],
            updatedAt: row["updated_at"]
        )
    }

    /// Every column of the row but `id`.
    func storedColumns(vault: CredentialVault) throws -> StoredColumns {
        [
            "tenant_id": tenantID,
            "name": name,
            "endpoint": settings.endpoint,
            "region": settings.region,
            "bucket": settings.bucket,
            "access_key_id": settings.accessKeyId,
            "secret_sealed": try vault.seal(text: settings.secretAccessKey),
            "path_style": settings.pathStyle,
            "created_at": StoredDate.text(createdAt),
            "updated_at": StoredDate.text(updatedAt),
        ]
    }
}
