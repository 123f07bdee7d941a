/// The body of an upload's final response, kept for the client (BITS's upload-reply) up to a size cap.
package struct StoredReply: Codable, Sendable, Equatable {
    /// Bytes kept (at most the cap).
    package var size: Int64
    /// Whether the server sent more than the cap; the rest was read and dropped.
    package var truncated: Bool
    package var contentType: String?

    package init(
        size: Int64,
        truncated: Bool,
        contentType: String? = nil
    ) {
        self.size = size
        self.truncated = truncated
        self.contentType = contentType
    }
}
