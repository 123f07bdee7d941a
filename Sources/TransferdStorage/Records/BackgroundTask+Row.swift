import TransferdDomain

/// A background task's row, read and written column by column.
extension BackgroundTask {
    static let table = "background_tasks"

    package init(row: StoredRow) throws {
        self.init(
            id: row["id"],
            publicId: row["public_id"],
            sessionId: row["session_id"],
            name: row["name"],
            state: try RowCoding.enumeration(row, "state"),
            grantedDuration: row["granted_duration"],
            expirationWarning: row["expiration_warning"],
            expiresAt: row["expires_at"],
            warned: row["warned"],
            createdAt: row["created_at"],
            endedAt: row["ended_at"]
        )
    }

    /// Every column of the row but `id`.
    func storedColumns() -> StoredColumns {
        [
            "public_id": publicId,
            "session_id": sessionId,
            "name": name,
            "state": state.rawValue,
            "granted_duration": grantedDuration,
            "expiration_warning": expirationWarning,
            "expires_at": StoredDate.text(expiresAt),
            "warned": warned,
            "created_at": StoredDate.text(createdAt),
            "ended_at": StoredDate.text(orNil: endedAt),
        ]
    }
}
