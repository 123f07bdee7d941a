/// `task.resumed_at_offset` (didResumeAtOffset): where in the file the attempt continued, 0 when it had to start
/// again, and why it did.
package struct ResumedAtOffset: Codable, Sendable, Equatable {
    /// The resource's length, -1 while unknown.
    package var totalBytesExpectedToWrite: Int64
    package var fileOffset: Int64
    /// Why the attempt started again from 0 instead of continuing; absent when it continued.
    package var restartReason: RestartReason?

    package init(totalBytesExpectedToWrite: Int64, fileOffset: Int64, restartReason: RestartReason?) {
        (self.totalBytesExpectedToWrite, self.fileOffset, self.restartReason) = (totalBytesExpectedToWrite, fileOffset, restartReason)
    }
}
