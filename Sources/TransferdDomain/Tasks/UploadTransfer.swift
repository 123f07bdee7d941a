/// What only an upload has: what it sends (a staged file or a finished download, raw or as a multipart form), how
/// much of it went, and the reply it kept.
package struct UploadTransfer: Sendable, Equatable {
    /// What it sends, as the client named it.
    package var from: UploadSource
    /// The staged file (row id) it sends.
    package var sourceFileId: Int64?
    /// The download (row id) whose content it sends.
    package var sourceTaskId: Int64?
    package var multipart: MultipartForm?
    package var countOfBytesSent: Int64 = 0
    /// The body's length.
    package var countOfBytesExpectedToSend: Int64 = -1
    /// The final response's body, once kept.
    package var reply: StoredReply?

    package init(from: UploadSource, multipart: MultipartForm?) {
        (self.from, self.multipart) = (from, multipart)
    }
}
