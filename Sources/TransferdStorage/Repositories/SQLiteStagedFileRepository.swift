import Foundation
import GRDB
import TransferdDomain

/// Staged files on SQLite.
struct SQLiteStagedFileRepository: StagedFileRepository {
    typealias Columns = StagedFile.Columns

    let db: Database

    func find(id: Int64) throws -> StagedFile? {
        try StagedFile.fetchOne(db, key: id)
    }

    func find(publicID: String, tenantID: Int64) throws -> StagedFile? {
        try StagedFile.filter(Columns.tenantID == tenantID && Columns.publicID == publicID).fetchOne(db)
    }

    func insert(_ file: StagedFile) throws -> StagedFile {
        var file = file
        try file.insert(db)
        return file
    }

    func update(_ file: StagedFile) throws {
        try file.update(db)
    }

    func delete(id: Int64) throws {
        _ = try StagedFile.deleteOne(db, key: id)
    }

    func deleteExpired(at now: Date) throws -> [Int64] {
        try SQLRequest<Int64>(
            literal: """
                DELETE FROM files WHERE expires_at < \(now)
                  AND NOT EXISTS (SELECT 1 FROM tasks u WHERE u.source_file_id = files.id AND u.state <> \(TaskState.completed))
                RETURNING id
                """
        ).fetchAll(db)
    }
}
