import Foundation
import GRDB
import TransferdDomain

/// Staged files.
struct SQLStagedFileRepository: StagedFileRepository {
    let db: any SQLConnection

    func find(id: Int64) async throws -> StagedFile? {
        try await db.fetchOne("SELECT * FROM files WHERE id = ?\(db.rowLock)", [id], StagedFile.init(row:))
    }

    func find(publicID: String, tenantID: Int64) async throws -> StagedFile? {
        try await db.fetchOne(
            "SELECT * FROM files WHERE tenant_id = ? AND public_id = ?\(db.rowLock)",
            [tenantID, publicID],
            StagedFile.init(row:)
        )
    }

    func list(tenantID: Int64, after cursor: Int64, limit: Int, now: Date) async throws -> [StagedFile] {
        try await db.fetchAll(
            """
            SELECT * FROM files WHERE tenant_id = ? AND id > ? AND (completed_at IS NOT NULL OR expires_at > ?)
            ORDER BY id LIMIT ?
            """,
            [tenantID, cursor, StoredDate.text(now), limit],
            StagedFile.init(row:)
        )
    }

    func insert(_ file: StagedFile) async throws -> StagedFile {
        var file = file
        file.id = try await RowStatements.insert(into: StagedFile.table, try file.storedColumns(), db)
        return file
    }

    func update(_ file: StagedFile) async throws {
        try await RowStatements.update(StagedFile.table, id: file.rowID, try file.storedColumns(), db)
    }

    func update(_ file: StagedFile, ifStandingAt offset: Int64) async throws -> Bool {
        let columns = try file.storedColumns()
        return try await db.execute(
            """
            UPDATE files SET \(columns.map { "\($0.key) = ?" }.joined(separator: ", "))
            WHERE id = ? AND upload_offset = ? AND completed_at IS NULL
            """,
            columns.map(\.value) + [file.rowID, offset]
        ) > 0
    }

    func delete(id: Int64) async throws {
        try await db.execute("DELETE FROM files WHERE id = ?", [id])
    }

    func deleteExpired(at now: Date) async throws -> [StagedFile] {
        try await db.fetchAll(
            """
            DELETE FROM files WHERE expires_at < ?
              AND NOT EXISTS (SELECT 1 FROM tasks u WHERE u.source_file_id = files.id AND u.state <> ?)
            RETURNING *
            """,
            [StoredDate.text(now), TaskState.completed],
            StagedFile.init(row:)
        )
    }
}
