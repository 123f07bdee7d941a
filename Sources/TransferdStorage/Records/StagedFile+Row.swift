import TransferdDomain

/// A staged file's row, read and written column by column.
extension StagedFile {
    static let table = "files"

    package init(row: StoredRow) throws {
        self.init(
            id: row["id"],
            tenantId: row["tenant_id"],
            publicId: row["public_id"],
            uploadLength: row["upload_length"],
            uploadOffset: row["upload_offset"],
            metadata: try RowCoding.json(row, "metadata"),
            contentType: row["content_type"],
            sha256: row["sha256"],
            createdAt: row["created_at"],
            expiresAt: row["expires_at"],
            completedAt: row["completed_at"],
            objects: try RowCoding.json(row, "objects")
        )
    }

    /// Every column of the row but `id`.
    func storedColumns() throws -> StoredColumns {
        [
            "tenant_id": tenantId,
            "public_id": publicId,
            "upload_length": uploadLength,
            "upload_offset": uploadOffset,
            "metadata": try RowCoding.json(metadata),
            "content_type": contentType,
            "sha256": sha256,
            "created_at": StoredDate.text(createdAt),
            "expires_at": StoredDate.text(expiresAt),
            "completed_at": StoredDate.text(orNil: completedAt),
            "objects": try RowCoding.json(objects),
        ]
    }
}
