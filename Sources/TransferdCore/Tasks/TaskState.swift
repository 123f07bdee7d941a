/// The four states of NSURLSessionTask, as transferd persists and shows them.
///
/// A `running` task is either transferring or queued for a worker; which one is the scheduler's business.
public enum TaskState: String, Codable, Sendable, CaseIterable {
    case suspended, running, canceling, completed
}
