/// `task.finished_downloading` (didFinishDownloadingTo): the finished file, and where the client fetches it.
package struct FinishedDownloading: Codable, Sendable, Equatable {
    package var file: StoredFile
    /// The content's path, relative to the session's.
    package var location: String

    package init(file: StoredFile, taskIdentifier: Int64) {
        self.file = file.asShownToClients
        location = "tasks/\(taskIdentifier)/content"
    }
}
