import Foundation

/// A validated request to create a task, as the tasks controller hands it to the lifecycle.
package struct NewTask: Sendable {
    package var kind: TransferTask.Kind
    package var request: TransferRequest
    /// `host:port` of the request's URL.
    package var origin: String
    package var taskDescription: String?
    package var priority: Double
    package var checksum: Checksum?
    package var earliestBeginDate: Date?
    /// Parallel range requests for the body, 1 to 16.
    package var connections: Int
    package var maxBytesPerSecond: Int64?
    package var maxBytes: Int64?
    /// A download's own redirect policy; nil for its session's.
    package var redirectPolicy: RedirectPolicy?
    /// The download this task continues, from a cancelled or failed task's resume data.
    package var resumeData: ResumeData?
    /// What an upload sends.
    package var uploadFrom: UploadSource?
    package var multipart: MultipartForm?
    /// The background task the transfer joins; it must be active, in the same session.
    package var backgroundTask: String?
    /// `false` creates the task suspended, like a task before its first `resume()`.
    package var start: Bool

    package init(
        kind: TransferTask.Kind,
        request: TransferRequest,
        origin: String,
        taskDescription: String? = nil,
        priority: Double,
        checksum: Checksum? = nil,
        earliestBeginDate: Date? = nil,
        connections: Int,
        maxBytesPerSecond: Int64? = nil,
        maxBytes: Int64? = nil,
        redirectPolicy: RedirectPolicy? = nil,
        resumeData: ResumeData? = nil,
        uploadFrom: UploadSource? = nil,
        multipart: MultipartForm? = nil,
        backgroundTask: String? = nil,
        start: Bool
    ) {
        self.kind = kind
        self.request = request
        self.origin = origin
        self.taskDescription = taskDescription
        self.priority = priority
        self.checksum = checksum
        self.earliestBeginDate = earliestBeginDate
        self.connections = connections
        self.maxBytesPerSecond = maxBytesPerSecond
        self.maxBytes = maxBytes
        self.redirectPolicy = redirectPolicy
        self.resumeData = resumeData
        self.uploadFrom = uploadFrom
        self.multipart = multipart
        self.backgroundTask = backgroundTask
        self.start = start
    }
}
