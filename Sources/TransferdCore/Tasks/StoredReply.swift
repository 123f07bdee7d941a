/// The body of an upload's final response, kept for the client (BITS's upload-reply) up to a size cap.
public struct StoredReply: Codable, Sendable, Equatable {
    /// Bytes kept (at most the cap).
    public var size: Int64
    /// Whether the server sent more than the cap; the rest was read and dropped.
    public var truncated: Bool
    public var contentType: String?
}
