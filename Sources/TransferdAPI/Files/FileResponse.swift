import Foundation
import Hummingbird
import TransferdDomain

/// A staged file as `GET /v1/files/{id}` shows it.
struct FileResponse: ResponseEncodable, Sendable {
    enum State: String, Codable, Sendable {
        /// Bytes are still missing (`uploadOffset` < `size`).
        case uploading
        case complete
    }

    var id: String
    var state: State
    var size: Int64
    var uploadOffset: Int64
    @ExplicitNull var sha256: String?
    @ExplicitNull var contentType: String?
    var metadata: [String: String]
    var createdAt: Date
    /// When an unfinished upload expires, or when a complete file is removed.
    var expiresAt: Date
    @ExplicitNull var completedAt: Date?

    init(_ file: StagedFile) {
        id = file.publicId
        state = file.isComplete ? .complete : .uploading
        size = file.uploadLength
        uploadOffset = file.uploadOffset
        sha256 = file.sha256
        contentType = file.contentType
        metadata = file.metadata ?? [:]
        createdAt = file.createdAt
        expiresAt = file.expiresAt
        completedAt = file.completedAt
    }
}
