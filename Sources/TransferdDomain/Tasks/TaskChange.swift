/// A validated `PATCH` of a task: each non-nil field changes; `maxBytesPerSecond` is `.some(nil)` to remove the limit.
package struct TaskChange: Sendable {
    package var priority: Double?
    package var taskDescription: String?
    package var maxBytesPerSecond: Int64??

    package init(
        priority: Double? = nil,
        taskDescription: String? = nil,
        maxBytesPerSecond: Int64?? = nil
    ) {
        self.priority = priority
        self.taskDescription = taskDescription
        self.maxBytesPerSecond = maxBytesPerSecond
    }
}
