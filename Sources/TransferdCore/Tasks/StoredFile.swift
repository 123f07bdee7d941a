/// A finished download as kept on disk: what the task's `file` field shows.
public struct StoredFile: Codable, Sendable, Equatable {
    public var size: Int64
    /// Lowercase hex SHA-256 of the content, computed while it streamed in.
    public var sha256: String
    public var contentType: String?
}
