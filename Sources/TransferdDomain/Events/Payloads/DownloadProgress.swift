/// `task.progress` (didWriteData): bytes written since the previous progress event, so far, and the expected total
/// (-1 while unknown).
package struct DownloadProgress: Codable, Sendable, Equatable {
    package var bytesWritten: Int64
    package var totalBytesWritten: Int64
    package var totalBytesExpectedToWrite: Int64

    package init(bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        (self.bytesWritten, self.totalBytesWritten, self.totalBytesExpectedToWrite) = (
            bytesWritten, totalBytesWritten, totalBytesExpectedToWrite
        )
    }
}
