import Foundation

/// New tasks of one session and the events each causes, to be written in one statement outside any transaction
/// (``TaskRepository/create(_:)``): the statement takes the tasks' identifiers and the events' sequences from the
/// session's row, as long as the session is active and the tasks fit its limit and its tenant's quotas.
package struct TaskCreation: Sendable {
    package let sessionID: Int64
    /// The tasks, their identifiers not yet taken.
    package let tasks: [TransferTask]
    /// Each task's events (the task's identifier is the one the statement takes), in order, after the events of the tasks before it.
    package let events: [[EventPayload]]
    /// The rule the session and its tenant hold the tasks to, which the statement carries out.
    package let admission: CreationAdmission
    package let createdAt: Date
    package let traceparent: String?
    /// The lease the tasks start under on the creating instance, when it has workers for them, if the statement finds
    /// that nothing else waits for one.
    package let start: Start?

    /// Tasks started where they are created: leased to `lease.owner` from `startedAt`, as a claim would lease them,
    /// as long as the claims' turn is free, no claim leased since the statement began, no other task waits, and the
    /// session's transfers to `origin` stay within `maximumConnectionsPerHost` (every instance's).
    package struct Start: Sendable {
        package let lease: TaskLease
        /// The time on the leases' clock that the lease was asked for at: other leases live past it or not.
        package let leasesAt: Date
        package let startedAt: Date
        /// The origin every task goes to.
        package let origin: String
        package let maximumConnectionsPerHost: Int

        package init(lease: TaskLease, leasesAt: Date, startedAt: Date, origin: String, maximumConnectionsPerHost: Int) {
            (self.lease, self.leasesAt, self.startedAt) = (lease, leasesAt, startedAt)
            (self.origin, self.maximumConnectionsPerHost) = (origin, maximumConnectionsPerHost)
        }
    }

    package init(
        sessionID: Int64,
        tasks: [TransferTask],
        events: [[EventPayload]],
        admission: CreationAdmission,
        createdAt: Date,
        traceparent: String?,
        start: Start? = nil
    ) {
        precondition(tasks.count == events.count && admission.count == tasks.count, "each task has its events and is admitted")
        (self.sessionID, self.tasks, self.events, self.admission) = (sessionID, tasks, events, admission)
        (self.createdAt, self.traceparent) = (createdAt, traceparent)
        self.start = start
    }

    /// A new task's events: `task.created`, and `task.resumed` when it `starts` at once.
    package static func events(starting starts: Bool) -> [EventPayload] {
        [.taskCreated(StateChange(.suspended))] + (starts ? [.taskResumed(StateChange(.running))] : [])
    }

    /// What the statement wrote: the tasks as stored, and their events in order.
    package struct Written: Sendable {
        package let tasks: [TransferTask]
        package let events: [Event]
        /// Whether any event was queued for the session's subscriber.
        package let queuedDelivery: Bool
        /// The tasks' rows' revisions, in order, when they started under the creation's lease (``Start``); none when
        /// they wait in their queue.
        package let started: [String]

        package init(tasks: [TransferTask], events: [Event], queuedDelivery: Bool, started: [String] = []) {
            (self.tasks, self.events, self.queuedDelivery, self.started) = (tasks, events, queuedDelivery, started)
        }
    }
}
