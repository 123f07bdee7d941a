/// A finished download as kept on disk, or as an object in a bucket: what the task's `file` field shows.
package struct StoredFile: Codable, Sendable, Equatable {
    package var size: Int64
    /// Lowercase hex SHA-256 of the content, computed while it streamed in.
    package var sha256: String
    package var contentType: String?
    /// The object it is, for a download into a bucket; nil for one kept in the data directory.
    package var object: StoredObject?

    package init(
        size: Int64,
        sha256: String,
        contentType: String? = nil,
        object: StoredObject? = nil
    ) {
        self.size = size
        self.sha256 = sha256
        self.contentType = contentType
        self.object = object
    }

    /// The file as clients see it: an object of the service's content store is the service's business, served by
    /// `…/content` like a file of the data directory.
    package var asShownToClients: StoredFile {
        guard object?.storage == ObjectLocation.contentStore else { return self }
        var shown = self
        shown.object = nil
        return shown
    }
}
