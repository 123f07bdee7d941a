import Foundation

/// A validated request to create a task, as the tasks controller hands it to the lifecycle.
package struct NewTask: Sendable {
    /// The kind's own data as it starts: a download's checksum, connections, size cap and redirect policy, or what
    /// an upload sends and how.
    package var transfer: Transfer
    package var request: TransferRequest
    /// `host:port` of the request's URL.
    package var origin: String
    package var taskDescription: String?
    package var priority: Double
    package var earliestBeginDate: Date?
    package var maxBytesPerSecond: Int64?
    /// The download this task continues, from a cancelled or failed task's resume data.
    package var resumeData: ResumeData?
    /// The background task the transfer joins; it must be active, in the same session.
    package var backgroundTask: String?
    /// `false` creates the task suspended, like a task before its first `resume()`.
    package var start: Bool
    /// The fetch schedule the task is a run of.
    package var fetchId: String?
    /// The span that creates the task, whose trace its attempts continue (``TransferTask/traceparent``).
    package var traceparent: String?

    package init(
        transfer: Transfer,
        request: TransferRequest,
        origin: String,
        taskDescription: String? = nil,
        priority: Double,
        earliestBeginDate: Date? = nil,
        maxBytesPerSecond: Int64? = nil,
        resumeData: ResumeData? = nil,
        backgroundTask: String? = nil,
        start: Bool
    ) {
        self.transfer = transfer
        self.request = request
        self.origin = origin
        self.taskDescription = taskDescription
        self.priority = priority
        self.earliestBeginDate = earliestBeginDate
        self.maxBytesPerSecond = maxBytesPerSecond
        self.resumeData = resumeData
        self.backgroundTask = backgroundTask
        self.start = start
    }

    package var kind: TransferTask.Kind { transfer.kind }
}
