/// A validated `PATCH` of a task: each non-nil field changes; `maxBytesPerSecond` is `.some(nil)` to remove the limit.
struct TaskChange: Sendable {
    var priority: Double?
    var taskDescription: String?
    var maxBytesPerSecond: Int64??
}
