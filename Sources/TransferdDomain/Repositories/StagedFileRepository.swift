import Foundation

/// Files staged for upload tasks.
package protocol StagedFileRepository {
    func find(id: Int64) throws -> StagedFile?
    func find(publicID: String, tenantID: Int64) throws -> StagedFile?
    /// The tenant's files after row id `cursor`, oldest first, but unfinished uploads past their expiry at `now`.
    func list(tenantID: Int64, after cursor: Int64, limit: Int, now: Date) throws -> [StagedFile]
    /// Inserts a new file and returns it with its row id.
    func insert(_ file: StagedFile) throws -> StagedFile
    func update(_ file: StagedFile) throws
    func delete(id: Int64) throws
    /// Removes the rows of files past their expiry at `now` that no unfinished upload will send; returns their ids.
    func deleteExpired(at now: Date) throws -> [Int64]
}
