import Foundation

/// A file a client stages in transferd for upload tasks: sent with tus in pieces, or whole in one plain request.
package struct StagedFile: Codable, Sendable, Persisted {

    /// Internal row id; names the file on disk.
    package var id: Int64?
    /// The tenant the file belongs to; ids are unique per tenant.
    package var tenantId: Int64
    /// The `{id}` of `/v1/files/{id}`: generated, or the client's own for a plain `PUT`.
    package var publicId: String
    /// The size the upload will have (`Upload-Length`).
    package var uploadLength: Int64
    /// Bytes stored so far (`Upload-Offset`).
    package var uploadOffset: Int64
    /// The decoded `Upload-Metadata`.
    package var metadata: [String: String]?
    package var contentType: String?
    /// Lowercase hex SHA-256, once complete.
    package var sha256: String?
    package var createdAt: Date
    /// An unfinished upload expires then (`Upload-Expires`); a complete file is removed then (retention).
    package var expiresAt: Date
    package var completedAt: Date?
    /// Its bytes in the content store; nil when they are in the data directory.
    package var objects: StagedObjects?

    package var isComplete: Bool { completedAt != nil }

    package init(
        id: Int64? = nil,
        tenantId: Int64,
        publicId: String,
        uploadLength: Int64,
        uploadOffset: Int64,
        metadata: [String: String]? = nil,
        contentType: String? = nil,
        sha256: String? = nil,
        createdAt: Date,
        expiresAt: Date,
        completedAt: Date? = nil,
        objects: StagedObjects? = nil
    ) {
        self.id = id
        self.tenantId = tenantId
        self.publicId = publicId
        self.uploadLength = uploadLength
        self.uploadOffset = uploadOffset
        self.metadata = metadata
        self.contentType = contentType
        self.sha256 = sha256
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.completedAt = completedAt
        self.objects = objects
    }
}
