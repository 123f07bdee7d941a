/// `task.upload_progress` (didSendBodyData): bytes sent since the previous upload progress event, so far, and the
/// body's length.
package struct UploadProgress: Codable, Sendable, Equatable {
    package var bytesSent: Int64
    package var totalBytesSent: Int64
    package var totalBytesExpectedToSend: Int64

    package init(bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        (self.bytesSent, self.totalBytesSent, self.totalBytesExpectedToSend) = (bytesSent, totalBytesSent, totalBytesExpectedToSend)
    }
}
