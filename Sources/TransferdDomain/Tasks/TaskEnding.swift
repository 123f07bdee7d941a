import Foundation

/// Ends of transfers of one session, worked out from their tasks as last known (``Basis``), to be written in one
/// statement outside any transaction (``TaskRepository/end(_:)``): the tasks' rows, their leases ended, and the
/// session's events. The statement writes only while what they were worked out from holds: each task is as it was
/// known (its revision) and still leased to `owner`, and the session is active. Whether the session goes idle is
/// left to the statement, which sees its busy tasks as they are: it appends `eventsIfIdle` after `events` only then.
package struct TaskEnding: Sendable {
    /// A task leased to an instance as last known, with its row's revision: as its lease left it (the row the claim
    /// read, with the lease), or as read again, with its session.
    package struct Basis: Sendable {
        package let task: TransferTask
        /// What the task's row is as known; any write of the row changes it.
        package let revision: String
        /// The task's session, when it was read with the task (a transfer's end reads it only if it needs it).
        package let session: Session?

        package init(task: TransferTask, revision: String, session: Session?) {
            (self.task, self.revision, self.session) = (task, revision, session)
        }
    }

    package let sessionID: Int64
    package let owner: String
    /// The tasks as they are to be written, each with the revision it was known at.
    package let tasks: [(task: TransferTask, revision: String)]
    /// The session's events, in order, numbered by the statement.
    package let events: [(taskIdentifier: Int64?, payload: EventPayload)]
    /// The events that follow when the session has no busy task once the tasks are written (`session.events_finished`).
    package let eventsIfIdle: [(taskIdentifier: Int64?, payload: EventPayload)]
    /// How many fewer busy tasks the session has once they are written.
    package let leavingBusy: Int
    package let createdAt: Date
    package let traceparent: String?

    package init(
        sessionID: Int64,
        owner: String,
        tasks: [(task: TransferTask, revision: String)],
        events: [(taskIdentifier: Int64?, payload: EventPayload)],
        eventsIfIdle: [(taskIdentifier: Int64?, payload: EventPayload)],
        leavingBusy: Int,
        createdAt: Date,
        traceparent: String?
    ) {
        (self.sessionID, self.owner, self.tasks, self.events, self.eventsIfIdle) = (sessionID, owner, tasks, events, eventsIfIdle)
        (self.leavingBusy, self.createdAt, self.traceparent) = (leavingBusy, createdAt, traceparent)
    }
}
