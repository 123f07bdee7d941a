import GRDB
import TransferdDomain

/// Endpoint notices' rows.
struct SQLEndpointNoticeRepository: EndpointNoticeRepository {
    let db: any SQLConnection

    func insert(_ notice: EndpointNotice) async throws {
        _ = try await RowStatements.insert(into: EndpointNotice.table, notice.storedColumns(), db)
    }

    func find(id: Int64) async throws -> EndpointNotice? {
        try await db.fetchOne("SELECT * FROM \(EndpointNotice.table) WHERE id = ?\(db.rowLock)", [id], EndpointNotice.init(row:))
    }

    func update(_ notice: EndpointNotice) async throws {
        try await RowStatements.update(EndpointNotice.table, id: notice.rowID, notice.storedColumns(), db)
    }

    /// Read through the partial index of open notices, whose condition is repeated as written.
    func open(limit: Int) async throws -> [EndpointNotice] {
        try await db.fetchAll(
            "SELECT * FROM \(EndpointNotice.table) WHERE logged = 0 OR ops_next_attempt_at IS NOT NULL ORDER BY id LIMIT ?",
            [limit],
            EndpointNotice.init(row:)
        )
    }
}
