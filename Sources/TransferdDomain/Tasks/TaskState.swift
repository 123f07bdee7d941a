/// The four states of NSURLSessionTask, as transferd persists and shows them.
///
/// A `running` task is either transferring or queued for a worker; which one is the scheduler's business.
package enum TaskState: String, Codable, Sendable, CaseIterable {
    case suspended, running, canceling, completed
}

extension TaskState {
    /// Whether a task in this state is queued, transferring or winding down: its session still has work.
    package var isBusy: Bool {
        self == .running || self == .canceling
    }
}
