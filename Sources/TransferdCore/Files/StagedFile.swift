import Foundation
import GRDB

/// A file a client stages in transferd for upload tasks: sent with tus in pieces, or whole in one plain request.
struct StagedFile: Codable, Sendable, SnakeCaseColumns, MutablePersistableRecord {
    static let databaseTableName = "files"

    /// Internal row id; names the file on disk.
    var id: Int64?
    /// The tenant the file belongs to; ids are unique per tenant.
    var tenantId: Int64
    /// The `{id}` of `/v1/files/{id}`: generated, or the client's own for a plain `PUT`.
    var publicId: String
    /// The size the upload will have (`Upload-Length`).
    var uploadLength: Int64
    /// Bytes stored so far (`Upload-Offset`).
    var uploadOffset: Int64
    /// The decoded `Upload-Metadata`.
    var metadata: [String: String]?
    var contentType: String?
    /// Lowercase hex SHA-256, once complete.
    var sha256: String?
    var createdAt: Date
    /// An unfinished upload expires then (`Upload-Expires`); a complete file is removed then (retention).
    var expiresAt: Date
    var completedAt: Date?

    var isComplete: Bool { completedAt != nil }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// Row id of a file read from the database (always set once inserted).
    var rowID: Int64 {
        guard let id else { preconditionFailure("file \(publicId) has not been inserted") }
        return id
    }
}
