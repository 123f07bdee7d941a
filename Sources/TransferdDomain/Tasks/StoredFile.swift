/// A finished download as kept on disk: what the task's `file` field shows.
package struct StoredFile: Codable, Sendable, Equatable {
    package var size: Int64
    /// Lowercase hex SHA-256 of the content, computed while it streamed in.
    package var sha256: String
    package var contentType: String?

    package init(
        size: Int64,
        sha256: String,
        contentType: String? = nil
    ) {
        self.size = size
        self.sha256 = sha256
        self.contentType = contentType
    }
}
