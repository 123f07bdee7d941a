import Foundation
import Hummingbird

/// A staged file as `GET /v1/files/{id}` shows it.
struct FileResponse: ResponseCodable, Sendable {
    enum State: String, Codable, Sendable {
        /// Bytes are still missing (`uploadOffset` < `size`).
        case uploading
        case complete
    }

    var id: String
    var state: State
    var size: Int64
    var uploadOffset: Int64
    var sha256: String?
    var contentType: String?
    var metadata: [String: String]
    var createdAt: Date
    /// When an unfinished upload expires, or when a complete file is removed.
    var expiresAt: Date
    var completedAt: Date?

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

    /// Encodes `null` for absent optionals, so every file has the same set of fields.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(state, forKey: .state)
        try container.encode(size, forKey: .size)
        try container.encode(uploadOffset, forKey: .uploadOffset)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(contentType, forKey: .contentType)
        try container.encode(metadata, forKey: .metadata)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(completedAt, forKey: .completedAt)
    }
}
