/// The body of an upload's final response, kept for the client (BITS's upload-reply) up to a size cap.
package struct StoredReply: Codable, Sendable, Equatable {
    /// Bytes kept (at most the cap).
    package var size: Int64
    /// Whether the server sent more than the cap; the rest was read and dropped.
    package var truncated: Bool
    package var contentType: String?
    /// The object of the content store that keeps it; nil when the data directory does.
    package var object: ObjectLocation?

    package init(
        size: Int64,
        truncated: Bool,
        contentType: String? = nil,
        object: ObjectLocation? = nil
    ) {
        self.size = size
        self.truncated = truncated
        self.contentType = contentType
        self.object = object
    }

    /// The reply as clients see it: where the service keeps it is its own business.
    package var asShownToClients: StoredReply {
        var shown = self
        shown.object = nil
        return shown
    }
}
