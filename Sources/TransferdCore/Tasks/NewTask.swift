import Foundation

/// A validated request to create a task, as the tasks controller hands it to the lifecycle.
struct NewTask: Sendable {
    var kind: TransferTask.Kind
    var request: TransferRequest
    /// `host:port` of the request's URL.
    var origin: String
    var taskDescription: String?
    var priority: Double
    var checksum: Checksum?
    var earliestBeginDate: Date?
    /// Parallel range requests for the body, 1 to 16.
    var connections: Int
    var maxBytesPerSecond: Int64?
    var maxBytes: Int64?
    /// The download this task continues, from a cancelled or failed task's resume data.
    var resumeData: ResumeData?
    /// What an upload sends.
    var uploadFrom: UploadSource?
    var multipart: MultipartForm?
    /// The background task the transfer joins; it must be active, in the same session.
    var backgroundTask: String?
    /// `false` creates the task suspended, like a task before its first `resume()`.
    var start: Bool
}
