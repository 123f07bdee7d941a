import Foundation

/// Files staged for upload tasks.
package protocol StagedFileRepository {
    func find(id: Int64) async throws -> StagedFile?
    func find(publicID: String, tenantID: Int64) async throws -> StagedFile?
    /// The tenant's files after row id `cursor`, oldest first, but unfinished uploads past their expiry at `now`.
    func list(tenantID: Int64, after cursor: Int64, limit: Int, now: Date) async throws -> [StagedFile]
    /// Inserts a new file and returns it with its row id.
    func insert(_ file: StagedFile) async throws -> StagedFile
    func update(_ file: StagedFile) async throws
    /// Writes the file where its upload still stands at `offset` and is not complete; false when it moved on (an
    /// append of another instance was recorded first).
    func update(_ file: StagedFile, ifStandingAt offset: Int64) async throws -> Bool
    func delete(id: Int64) async throws
    /// Removes the rows of files past their expiry at `now` that no unfinished upload will send; returns them.
    func deleteExpired(at now: Date) async throws -> [StagedFile]
}
