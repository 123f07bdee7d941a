import Foundation

/// Ends of transfers of one session, worked out from their tasks as read (``Basis``), to be written in one statement
/// outside any transaction (``TaskRepository/end(_:)``): the tasks' rows, their leases ended, and the session's
/// events. The statement writes only while what they were worked out from holds: each task is as it was read (its
/// revision) and still leased to `owner`, the session is active, and its busy tasks outlast the ends, or not, as the
/// session's bookkeeping took them to (`session.events_finished` is among the events when they do not).
package struct TaskEnding: Sendable {
    /// A task leased to an instance as read, with its row's revision, its session and the session's workload.
    package struct Basis: Sendable {
        package let task: TransferTask
        /// What the task's row is as read; any write of the row changes it.
        package let revision: String
        package let session: Session
        package let workload: SessionWorkload

        package init(task: TransferTask, revision: String, session: Session, workload: SessionWorkload) {
            (self.task, self.revision, self.session, self.workload) = (task, revision, session, workload)
        }
    }

    package let sessionID: Int64
    package let owner: String
    /// The tasks as they are to be written, each with the revision it was read at.
    package let tasks: [(task: TransferTask, revision: String)]
    /// The session's events, in order, numbered by the statement.
    package let events: [(type: EventType, taskIdentifier: Int64?, data: EventData)]
    /// How many fewer busy tasks the session has once they are written.
    package let leavingBusy: Int
    /// Whether the session keeps busy tasks once they are written.
    package let staysBusy: Bool
    package let createdAt: Date
    package let traceparent: String?

    package init(
        sessionID: Int64,
        owner: String,
        tasks: [(task: TransferTask, revision: String)],
        events: [(type: EventType, taskIdentifier: Int64?, data: EventData)],
        leavingBusy: Int,
        staysBusy: Bool,
        createdAt: Date,
        traceparent: String?
    ) {
        (self.sessionID, self.owner, self.tasks, self.events) = (sessionID, owner, tasks, events)
        (self.leavingBusy, self.staysBusy, self.createdAt, self.traceparent) = (leavingBusy, staysBusy, createdAt, traceparent)
    }
}
