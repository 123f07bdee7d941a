/// The notices disabling endpoints owes, until they are told.
package protocol EndpointNoticeRepository {
    func insert(_ notice: EndpointNotice) async throws
    /// The notice, its row locked for the transaction on PostgreSQL.
    func find(id: Int64) async throws -> EndpointNotice?
    /// Writes what telling it changed: `logged` and the operational webhook's columns.
    func update(_ notice: EndpointNotice) async throws
    /// The notices with something left to tell, oldest first, at most `limit`.
    func open(limit: Int) async throws -> [EndpointNotice]
}
